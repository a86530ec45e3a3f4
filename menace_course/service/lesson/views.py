"""The lesson page at ``/lesson`` and its small JSON API (the blueprint ``lesson``).

* ``GET /lesson``: the page (``?seed=N`` makes the widget reproducible);
* ``POST /lesson/api/widget``: ``{"seed", "settings"?, "log", "action"?, "boxes"?}`` plays
  what was pressed on the server's engine and answers with the game to show, the chart's
  data, the tallies, and (with ``"boxes": true``) every box opened, MENACE's and a learning O's;
* ``POST /lesson/api/trained``: ``{"game", "moves"}`` a game against Step 3's MENACE after
  its 300 games (:mod:`.trained`);
* ``POST /lesson/api/run``: ``{"step": 1-4, "source"}`` runs a program in the sandbox
  and answers with what it printed, its pictures (SVG) or what went wrong. It runs in this
  process's sandboxed children, a few at a time (``programs.CONCURRENT``), whichever queue
  the service's checks use (``menace serve --queue procrastinate`` included).

The challenges on the page are checked through the service's own API
(``POST /api/v1/checks?wait=S&format=html``), exactly as on ``/c/<slug>``. Inside
``menace serve`` the course and the sandbox are the service's own
(``app.extensions["menace"]``); a bare app reads ``MENACE_COURSE`` and ``MENACE_SANDBOX``.
"""

from __future__ import annotations

import functools
import re
import secrets
from pathlib import Path
from typing import Any, cast

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request, url_for
from markdown_it import MarkdownIt

from menace_course.catalog import load_challenge
from menace_course.course import BUNDLED_COURSE, Course, find_course
from menace_course.errors import CourseError, MenaceError
from menace_course.limits import Limits
from menace_course.models import SandboxKind
from menace_course.sandbox.launch import choose_kind
from menace_course.service.browser_words import browser_words
from menace_course.service.dispatch.fair import FairSlots
from menace_course.service.languages import gettext as _
from menace_course.service.languages import install, request_language
from menace_course.service.lesson.programs import CONCURRENT, run_program
from menace_course.service.lesson.widget import (
    MAX_GAMES,
    MAX_SEED,
    BadRequest,
    WidgetCache,
    games_in,
    merged,
    parse_action,
    parse_log,
    parse_settings,
)
from menace_course.service.lesson.words import lesson_words
from menace_course.service.refusal import Refusal, json_answer
from menace_course.wording import N_

__all__ = ["CHALLENGES", "blueprint"]

blueprint = Blueprint("lesson", __name__, template_folder="templates")
#: In an app of its own (not ``menace serve``, whose one handler replaces this), refusals are JSON.
blueprint.record_once(lambda setup: setup.app.register_error_handler(Refusal, json_answer))
#: The page and its widget speak the request's language (``?lang=``, else Accept-Language).
blueprint.record_once(lambda setup: install(cast(Flask, setup.app)))

#: The challenges the page holds, in its order.
CHALLENGES = ("after_game", "count_boxes", "opening_box")
#: What the four programs are called on the page (message ids: the page words them in its language).
STEP_TITLES = {
    1: N_("Step 1: how many boxes?"),
    2: N_("Step 2: a box of beads"),
    3: N_("Step 3: play, and learn"),
    4: N_("Step 4: against a random player"),
}

_cache = WidgetCache()
_markdown = MarkdownIt("commonmark", {"html": False}).enable("table")


def _service() -> Any:
    """The service's state when this runs inside ``menace serve`` (else None)."""
    return current_app.extensions.get("menace")


def _course() -> Course | None:
    service = _service()
    if service is not None and isinstance(getattr(service, "course", None), Course):
        return service.course  # type: ignore[no-any-return]
    configured = current_app.config.get("MENACE_COURSE")
    try:
        return find_course(Path(configured) if configured else None)
    except CourseError:
        return None


def _sandbox() -> SandboxKind:
    """The sandbox the service checks with (so a program runs exactly where a check runs)."""
    service = _service()
    configured = getattr(getattr(service, "config", None), "sandbox", None)
    return choose_kind(str(configured or current_app.config.get("MENACE_SANDBOX", "auto")))


def _task(slug: str, course: Course | None) -> dict[str, Any] | None:
    """A challenge for the page: its title, its task (README) as HTML, and its starter."""
    if course is None:
        return None
    try:
        challenge = load_challenge(course, slug)
        text = challenge.text.read_text(encoding="utf-8")
        starter = challenge.starter_on_a_page(challenge.starter.read_text(encoding="utf-8"))
    except (MenaceError, OSError):
        return None
    heading, _sep, body = text.partition("\n")
    task, _sep, more = body.partition("\n## ")
    return {
        "slug": slug,
        "title": challenge.title,
        "stars": "★" * challenge.stars,
        "function": challenge.function,
        "heading": heading.lstrip("# ").strip(),
        "task": _markdown.render(task),
        "more": _markdown.render("## " + more) if more else "",
        "starter": starter,
    }


def step_source(number: int, course: Course | None) -> str | None:
    """The page's Step ``number`` program as a student sees it (importing ``noughts``, ``pixels``).

    The course's ``reference/steps/stepN.py`` imports the package's copies of those modules;
    on the page, as in ``menace start stepN``, they sit beside the program.
    """
    folders = [course.reference_dir / "steps"] if course is not None else []
    for folder in [*folders, BUNDLED_COURSE / "reference" / "steps"]:
        path = folder / f"step{number}.py"
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            return re.sub(r"^from menace_course\.lesson\.(\w+) import", r"from \1 import", text, flags=re.M)
    return None


@functools.cache
def lesson_output(number: int) -> str:
    """What the lesson's Step ``number`` program prints, computed once with the package's engine
    (the tests hold it to the golden text, line for line), to show beside the program."""
    import random

    from menace_course.lesson.experiments.page_steps import STEPS
    from menace_course.service.lesson.widget import RANDOM_LOCK

    with RANDOM_LOCK:  # the steps seed Python's shared generator: put its state back after
        saved = random.getstate()
        try:
            lines = STEPS[number]().lines
        finally:
            random.setstate(saved)
    return "\n".join(lines) + "\n"


def helper_files() -> dict[str, str]:
    """``noughts.py`` and ``pixels.py`` as a program on the page imports them."""
    from menace_course.lesson.program_files import HELPERS

    return {
        f"{module}.py": Path(HELPERS[module].__file__ or "").read_text(encoding="utf-8") for module in HELPERS
    }


def _programs(course: Course | None) -> list[dict[str, Any]]:
    programs = []
    for number, title in STEP_TITLES.items():
        source = step_source(number, course)
        if source is not None:
            programs.append(
                {"step": number, "title": title, "source": source, "expected": lesson_output(number)}
            )
    return programs


def _checker() -> tuple[str | None, str | None]:
    """Who the page's checks run as: ``(their name, None)`` when signed in, ``(None, the sign-in
    address)`` when the service wants a name and has none, ``(None, None)`` when anyone may
    check (``menace serve --open``) or outside the service."""
    if _service() is None or "pages.login" not in current_app.view_functions:
        return None, None
    from menace_course.service.auth import AuthError, who

    try:
        person = who()
    except AuthError:
        person = None
    if person is not None and person.signed_in:
        return person.name or _("you"), None
    service = _service()
    if service.config.open if service is not None else current_app.config.get("MENACE_OPEN"):
        return None, None
    return None, url_for("pages.login")


@blueprint.get("/lesson")
def page() -> str:
    """The lesson, with its widget, its programs and its challenges."""
    seed_text = request.args.get("seed", "")
    seed = int(seed_text) if seed_text.isdigit() and int(seed_text) < MAX_SEED else None
    course = _course()
    checker_name, sign_in_url = _checker()
    return render_template(
        "lesson/page.html",
        seed=seed if seed is not None else secrets.randbelow(100_000),
        seed_given=seed is not None,
        programs={p["step"]: p for p in _programs(course)},
        challenges=[t for t in (_task(slug, course) for slug in CHALLENGES) if t is not None],
        checker_name=checker_name,
        sign_in_url=sign_in_url,
        helper_files=helper_files(),
        lesson_words=lesson_words(request_language()),
        check_words=browser_words(request_language()),
    )


@blueprint.post("/lesson/api/widget")
def widget() -> Response:
    """Play what was pressed; answer with the game to show and the widget's state."""
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise Refusal(
            400, "bad_request", _("send a JSON object: %(shape)s") % {"shape": "{seed, log, action}"}
        )
    seed = data.get("seed")
    if type(seed) is not int or not 0 <= seed < MAX_SEED:
        raise Refusal(
            400,
            "bad_request",
            _("%(what)s must be a whole number from %(low)s to %(high)s")
            % {"what": "seed", "low": 0, "high": MAX_SEED - 1},
        )
    try:
        settings = parse_settings(data.get("settings"))
        log = parse_log(data.get("log", []))
        action = parse_action(data["action"]) if data.get("action") is not None else None
        if action is not None and games_in([*log, action]) > MAX_GAMES:
            raise BadRequest(_("a widget plays at most %(n)s games: press Start") % {"n": MAX_GAMES})
        state = _cache.get(seed, log, settings)
        game = state.apply(action) if action is not None else None
    except BadRequest as error:
        raise Refusal(400, "bad_request", str(error)) from None
    if action is not None and (game is None or game["result"] is not None):
        log = merged(log, action)
        _cache.put(seed, log, state)
    answer: dict[str, Any] = {
        **state.summary(),
        "log": [entry.entry() for entry in log],
        "game": game,
    }
    if data.get("boxes"):
        answer["boxes"] = state.all_boxes()
        answer["o_boxes"] = state.all_boxes("O")
    return jsonify(answer)


#: The runner's slots, shared in turns (:class:`~..dispatch.fair.FairSlots`): one run or one place
#: in line per student (per address when anonymous), so no one or two students hold them all.
RUNNER = FairSlots(CONCURRENT, waiting=2 * CONCURRENT)


def runner_wait() -> float:
    """How long a place in the runner's line may wait: until every run ahead of it ended.

    Each run ends within its wall limit, and the line is at most two runs per slot deep.
    """
    return 2 * Limits().wall_limit + 5.0


def _runner_key() -> str:
    if _service() is None:
        return f"addr:{request.remote_addr}"
    from menace_course.service.rate_limits import rate_key

    return rate_key()


@blueprint.post("/lesson/api/run")
def run() -> Response:
    """Run a Step program (as shown, or as the student changed it) in the sandbox.

    One program at a time per student (or address): a second while the first runs or
    waits is refused at once with 429. Others wait their turn for one of the process's few
    slots (:data:`RUNNER`); a full line is refused at once with 429 and ``Retry-After``.
    """
    data = request.get_json(silent=True)
    if not isinstance(data, dict) or not isinstance(data.get("source"), str):
        raise Refusal(400, "bad_request", _("send a JSON object: %(shape)s") % {"shape": "{step, source}"})
    owner = _runner_key()
    taken = RUNNER.take(owner, runner_wait())
    if taken == "yours":
        raise Refusal(429, "still_running", _("your last program is still running: wait for it to finish"), 5)
    if taken == "full":
        busy = _("too many programs are running; try again in a moment")
        raise Refusal(429, "runner_busy", busy, int(Limits().wall_limit))
    try:
        result = run_program(data["source"], _sandbox())
    finally:
        RUNNER.give_back(owner)
    return jsonify(result.as_json())


# A program runs here, in the web process's own sandboxed children and its CONCURRENT slots
# (menace_course.service.lesson.programs), never on the check workers: so the page's programs
# work with ``menace serve --queue procrastinate`` too, where checks go to ``menace worker``s
# (the service reads this mark: menace_course.service.rate_limits.RUNS_IN_WEB_PROCESS).
run.runs_in_web_process = True  # type: ignore[attr-defined]


@blueprint.post("/lesson/api/trained")
def trained() -> Response:
    """A move of Step 3's trained MENACE (it learns nothing): ``{"game": n, "moves": [O's squares]}``."""
    from menace_course.service.lesson.trained import TrainedGameError, play_trained

    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise Refusal(400, "bad_request", _("send a JSON object: %(shape)s") % {"shape": "{game, moves}"})
    try:
        return jsonify(play_trained(data.get("game", 0), data.get("moves", [])))
    except TrainedGameError as error:
        raise Refusal(400, "bad_request", str(error)) from None
