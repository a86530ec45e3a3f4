"""Cheating, bombing and escaping submissions: each gets the right verdict and a friendly
message, and leaves nothing behind.

Every file in ``tests/corpus/hostile`` goes through the real command, as the course's graders
run it: ``menace check FILE --challenge SLUG --format json`` in its own process, within
the challenge's hard time limit (see :func:`check_timeout`). The first line of each file
says what it tries; ``# Hostile (SLUG): ...`` names a challenge other than after_game.
All checks run at once (a few at a time) in one module fixture; the tests below then read
what happened.

While they run this process is a "child subreaper": anything a check leaves running is
handed to it instead of to init, so leftovers can be found (and are killed afterwards).
"""

from __future__ import annotations

import ast
import contextlib
import csv
import ctypes
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from menace_course.feedback import render
from menace_course.models import SubmissionReport
from menace_course.sandbox import seccomp
from tests.support import processes

pytestmark = [pytest.mark.bwrap, pytest.mark.slow]

REPO = Path(__file__).resolve().parents[2]
HOSTILE = REPO / "tests" / "corpus" / "hostile"
MARKER = "menace-hostile-marker"
ESCAPE_NAME = "menace-escape-marker"
#: Seconds the grader may need around the sandbox: its own start, the suite, the feedback.
GRADER_SLACK = 15.0


def check_timeout(slug: str) -> float:
    """How long one check may take, however hostile the file and however busy the machine.

    The worker never waits on a submission past its hard wall-clock limit (``wall_limit``:
    the budget, the loading time and 5 s; 30 s for after_game); the time limits inside it
    count the child's own time, so on a loaded machine a check takes longer, up to that
    limit, instead of giving a different verdict.
    """
    from menace_course.catalog import load_challenge
    from menace_course.course import Course

    return load_challenge(Course(REPO), slug).limits.wall_limit + GRADER_SLACK


#: grader bugs found by this corpus, to be fixed in the grader core (strict: a fix shows up)
#: hostile files the grader is known to get wrong (strict xfail: they flag their own fix)
KNOWN_GRADER_BUGS: dict[str, str] = {}


@dataclass
class Run:
    """What one ``menace check`` of a hostile file did."""

    name: str
    slug: str
    code: int | None
    stdout: str
    stderr: str
    seconds: float

    @property
    def report(self) -> dict:
        return json.loads(self.stdout)

    @property
    def text(self) -> str:
        """The text feedback a student reads for this report (what ``--format text`` prints)."""
        report = SubmissionReport.from_dict(self.report)
        return render(report, REPO / "feedback_templates", "text")

    def test(self, name: str) -> dict:
        return next(t for t in self.report["tests"] if t["name"] == name)

    def outcomes(self) -> list[str]:
        return [t["outcome"] for t in self.report["tests"]]

    def load_detail(self) -> dict:
        problem = self.report["load_problem"]
        assert problem is not None, self.report["status"]
        return problem["detail"] or {}


@dataclass
class Aftermath:
    """Every run, and what was left on the machine afterwards."""

    runs: dict[str, Run]
    leftover_children: list[str] = field(default_factory=list)
    marked_processes: list[str] = field(default_factory=list)
    connections: int = 0
    workdir: Path = REPO


def slug_of(path: Path) -> str:
    found = re.match(r"# Hostile \((\w+)\)", path.read_text(encoding="utf-8", errors="replace"))
    return found.group(1) if found else "after_game"


def hostile_files() -> list[Path]:
    return sorted(HOSTILE.glob("*.py"))


def run_check(path: Path, slug: str, cwd: Path) -> tuple[int | None, str, str, float]:
    argv = [sys.executable, "-m", "menace_course", "check", str(path), "--challenge", slug]
    argv += ["--format", "json", "--course", str(REPO)]
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    started = time.monotonic()
    try:
        done = subprocess.run(
            argv, cwd=cwd, capture_output=True, timeout=check_timeout(slug), check=False, env=env
        )
    except subprocess.TimeoutExpired as late:
        out = (late.stdout or b"").decode("utf-8", "replace")
        return None, out, "timed out", time.monotonic() - started
    out = done.stdout.decode("utf-8", "replace")
    err = done.stderr.decode("utf-8", "replace")
    return done.returncode, out, err, time.monotonic() - started


# -- what is running, and what was left --------------------------------------------------


def reap_zombies() -> None:
    """Collect finished orphans handed to this process while it was the subreaper."""
    with contextlib.suppress(ChildProcessError):
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass


@contextlib.contextmanager
def subreaper() -> Iterator[None]:
    """Make this process the one that inherits orphans, for as long as the block lasts."""
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_child_subreaper = 36
    libc.prctl(pr_set_child_subreaper, 1, 0, 0, 0)
    try:
        yield
    finally:
        libc.prctl(pr_set_child_subreaper, 0, 0, 0, 0)


def reap_and_kill(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    for pid in pids:
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)


# -- running everything once ---------------------------------------------------------------


@pytest.fixture(scope="module")
def aftermath(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Aftermath]:
    workdir = tmp_path_factory.mktemp("hostile")
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    jobs = []
    for path in hostile_files():
        data = path.read_bytes()
        data = data.replace(b"PORT = 47813", f"PORT = {port}".encode())
        data = data.replace(b"REPO = '/work/main'", f"REPO = {str(REPO)!r}".encode())
        copy = workdir / path.name
        copy.write_bytes(data)
        jobs.append((path.stem, slug_of(path), copy))
    # the slow ones first, so that the pool ends together
    slow = ("loop", "sleep", "memory", "signals", "fork", "flood", "recursion")
    jobs.sort(key=lambda job: not any(word in job[0] for word in slow))

    def one(job: tuple[str, str, Path]) -> Run:
        name, slug, copy = job
        return Run(name, slug, *run_check(copy, slug, workdir))

    me = os.getpid()
    # children this test process had before (e.g. multiprocessing's resource tracker from
    # earlier tests) are not the submissions' doing
    before = {pid for pid, (parent, _) in processes().items() if parent == me}
    with subreaper():
        with ThreadPoolExecutor(max_workers=4) as pool:  # most of them wait, few compute
            runs = {run.name: run for run in pool.map(one, jobs)}
        time.sleep(0.5)  # let anything that escaped show itself
        reap_zombies()
        now = processes()
        leftover = [pid for pid, (parent, _) in now.items() if parent == me and pid not in before]
        leftover_lines = [f"{pid}: {now[pid][1]}" for pid in leftover]
        marked = [f"{pid}: {cmd}" for pid, (_, cmd) in now.items() if MARKER in cmd]
        reap_and_kill(leftover + [int(line.split(":")[0]) for line in marked])
        reap_zombies()
    connections = 0
    with contextlib.suppress(BlockingIOError):
        while True:
            conn, _ = listener.accept()
            connections += 1
            conn.close()
    listener.close()

    yield Aftermath(runs, leftover_lines, marked, connections, workdir)


def run_of(aftermath: Aftermath, name: str) -> Run:
    assert name in aftermath.runs, f"tests/corpus/hostile/{name}.py is missing"
    return aftermath.runs[name]


# -- every file: a verdict, in time, in valid JSON, nothing left ----------------------------

EVERY_FILE = [
    pytest.param(p.stem, marks=pytest.mark.xfail(strict=True, reason=KNOWN_GRADER_BUGS[p.stem]))
    if p.stem in KNOWN_GRADER_BUGS
    else p.stem
    for p in hostile_files()
]


@pytest.mark.parametrize("name", EVERY_FILE)
def test_every_hostile_file_gets_a_verdict_in_valid_json_within_its_time_limit(aftermath, name):
    run = run_of(aftermath, name)
    assert run.code is not None, f"the check of {name} did not end within {check_timeout(run.slug)} s"
    assert "Traceback" not in run.stderr, run.stderr[-2000:]
    report = run.report
    assert report["challenge"] == run.slug and report["sandbox"] == "bwrap"
    assert {"passed", "score", "max_score", "tests", "status"} <= set(report)
    if name == "cp1252_encoded":
        assert (run.code, report["passed"]) == (0, True)
    else:
        assert (run.code, report["passed"]) == (1, False)
        # full marks only with a finding that makes it "needs review", never a pass
        assert report["score"] < report["max_score"] or report["integrity"]


def test_nothing_a_submission_started_is_left_running(aftermath):
    assert aftermath.leftover_children == []
    assert aftermath.marked_processes == []


def test_graded_in_grader_processes_that_keep_spare_sandboxes_every_file_gets_the_same_verdict(
    aftermath, tmp_path
):
    # menace grade checks file after file in each grader process, so every file after a
    # grader's first runs in a sandbox started before it came (sandbox/spare.py): the verdicts
    # must be those of a sandbox started for the file (each `menace check` above).
    names = sorted(name for name, run in aftermath.runs.items() if run.slug == "after_game")
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    for name in names:
        (submissions / f"{name}.py").write_bytes((aftermath.workdir / f"{name}.py").read_bytes())
    out = tmp_path / "graded"
    argv = [sys.executable, "-m", "menace_course", "grade", str(submissions), "--challenge", "after_game"]
    argv += ["--out", str(out), "--jobs", "2", "--course", str(REPO)]
    done = subprocess.run(
        argv, cwd=aftermath.workdir, capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    graded = {}
    for line in (out / "results.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        graded[record["grading"]["student"]] = record

    def verdict(report: dict) -> tuple:
        return report["status"], report["score"], [(t["name"], t["outcome"]) for t in report["tests"]]

    assert sorted(graded) == names
    differing = {
        n: (verdict(graded[n]), verdict(aftermath.runs[n].report))
        for n in names
        if not same_but_where_the_budget_ran_out(graded[n], aftermath.runs[n].report)
    }
    assert {n: pair for n, pair in differing.items() if pair[0] != pair[1]} == {}


def same_but_where_the_budget_ran_out(one: dict, other: dict) -> bool:
    """The same status and score, and each test's outcome the same unless one of the two is a
    test skipped because the submission's CPU budget had run out.

    A budget counts the child's CPU time, which varies a little from run to run: a file
    whose every call costs about as much (recursion_limit_raised_python on 3.12 and later,
    about a tenth of the budget a call) may have its budget run out one test earlier in
    one run than in another. Every other difference still counts.
    """
    if (one["status"], one["score"]) != (other["status"], other["score"]):
        return False
    return all(
        a["outcome"] == b["outcome"] or "budget" in (_problem(a), _problem(b))
        for a, b in zip(one["tests"], other["tests"], strict=True)
    )


def _problem(test: dict) -> str | None:
    return (test.get("detail") or {}).get("problem")


def test_every_hostile_file_says_what_it_tries_on_its_first_line():
    for path in hostile_files():
        if path.stem == "empty_file":
            assert path.read_bytes() == b""
            continue
        first = path.read_text(encoding="utf-8", errors="replace").splitlines()
        assert first and first[0].startswith("# Hostile"), path.name


# -- files that cannot be loaded --------------------------------------------------------


def test_a_syntax_error_is_shown_with_its_line_and_nothing_runs(aftermath):
    run = run_of(aftermath, "syntax_error")
    assert run.report["status"] == "syntax_error"
    assert set(run.outcomes()) == {"skipped"}
    assert "Python could not read syntax_error.py" in run.text
    assert "def after_game(beads, square, result)" in run.text and "expected ':'" in run.text


def test_a_crash_while_loading_shows_the_students_line(aftermath):
    run = run_of(aftermath, "crash_at_import")
    assert run.report["status"] == "load_error"
    assert run.load_detail()["error_type"] == "ZeroDivisionError"
    assert "stopped with an error while it was loading" in run.text
    assert "harness" not in run.text and "/box/" not in run.text


@pytest.mark.parametrize("name", ["missing_function", "misspelled_function", "empty_file"])
def test_a_missing_function_is_named_and_nothing_runs(aftermath, name):
    run = run_of(aftermath, name)
    assert run.report["status"] == "no_function"
    assert set(run.outcomes()) == {"skipped"}


def test_a_misspelled_function_is_pointed_out(aftermath):
    run = run_of(aftermath, "misspelled_function")
    assert run.report["load_problem"]["functions_found"] == ["after_gme"]
    assert "No function named after_game" in run.text and "'after_gme' is defined instead" in run.text


def test_a_function_with_the_wrong_arguments_is_shown_both_ways(aftermath):
    run = run_of(aftermath, "wrong_arity")
    assert run.report["status"] == "bad_signature"
    assert "def after_game(beads, square, result)" in run.text
    assert "def after_game(beads, square)" in run.text


def test_a_windows_1252_file_passes_with_a_notice(aftermath):
    run = run_of(aftermath, "cp1252_encoded")
    assert run.report["notices"] and "UTF-8" in run.report["notices"][0]
    assert "note:" in run.text


@pytest.mark.parametrize(
    "name, problem, error_type",
    [
        ("input_at_import", "input", "EOFError"),
        ("sys_exit_at_import", "exit", "SystemExit"),
        ("memory_bomb_at_import", "memory", "MemoryError"),
        ("imports_menace_course", "import", "ModuleNotFoundError"),
        ("imports_hypothesis", "import", "ModuleNotFoundError"),
        ("imports_reference", "import", "ModuleNotFoundError"),
    ],
)
def test_code_that_fails_while_loading_is_reported_as_such(aftermath, name, problem, error_type):
    run = run_of(aftermath, name)
    assert run.report["status"] == "load_error"
    detail = run.load_detail()
    assert (detail["problem"], detail["error_type"]) == (problem, error_type)
    assert set(run.outcomes()) == {"skipped"}


def test_input_while_loading_gets_advice_about_the_keyboard(aftermath):
    run = run_of(aftermath, "input_at_import")
    assert "there is no keyboard" in run.text and 'if __name__ == "__main__":' in run.text


def test_sys_exit_while_loading_gets_advice_about_exit(aftermath):
    assert "ends the program while it loads" in run_of(aftermath, "sys_exit_at_import").text


def test_os_exit_while_loading_stops_python_and_is_reported(aftermath):
    run = run_of(aftermath, "os_exit_at_import")
    assert run.report["status"] == "load_error"
    assert "stopped Python while it was loading" in run.report["load_problem"]["message"]


@pytest.mark.parametrize("name", ["infinite_loop_at_import", "sleep_at_import"])
def test_a_file_that_never_finishes_loading_costs_one_time_limit(aftermath, name):
    run = run_of(aftermath, name)
    assert run.report["status"] == "load_error"
    assert "did not finish loading in time" in run.report["load_problem"]["message"]
    assert set(run.outcomes()) == {"skipped"}  # one time limit for the file, none per test


# -- wrong kinds of value ----------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "returns_none",
        "returns_tuple",
        "returns_generator",
        "returns_huge_int",
        "always_equal",
        "always_equal_object",
    ],
)
def test_a_value_of_the_wrong_kind_never_passes_a_value_check(aftermath, name):
    run = run_of(aftermath, name)
    examples = [t for t in run.report["tests"] if t["kind"] == "example"]
    assert examples and all(t["outcome"] == "failed" for t in examples)
    assert examples[0]["detail"]["problem"] == "wrong_type"
    compared = [t for t in run.report["tests"] if "change" not in t["name"]]
    assert not any(t["outcome"] == "passed" and "agrees" in t["name"] for t in compared)


def test_an_object_that_claims_to_equal_everything_is_shown_by_its_type(aftermath):
    run = run_of(aftermath, "always_equal_object")
    assert "got:      <Yes: " in run.text


def test_an_opening_box_that_equals_everything_and_clears_the_games_fails(aftermath):
    run = run_of(aftermath, "opening_box_always_equal")
    assert all(t["outcome"] != "passed" for t in run.report["tests"] if t["kind"] == "example")
    assert run.test("leaves_the_games_alone")["outcome"] == "failed"


def test_a_changed_input_is_reported_even_when_the_value_is_right(aftermath):
    run = run_of(aftermath, "changes_input")
    assert run.test("example_1")["detail"]["problem"] == "changed_input"
    assert "changed the list it was given" in run.text


# -- time, memory, processes, output -------------------------------------------------------


@pytest.mark.parametrize("name", ["infinite_loop_in_call", "sleep_in_call", "ignores_signals", "print_flood"])
def test_a_function_that_never_returns_costs_one_timeout_then_is_skipped(aftermath, name):
    run = run_of(aftermath, name)
    outcomes = run.outcomes()
    assert outcomes[0] == "timeout" and set(outcomes[1:]) == {"skipped"}


def test_a_timeout_is_explained_in_plain_words(aftermath):
    text = run_of(aftermath, "infinite_loop_in_call").text
    assert "after_game did not finish in time" in text and "a loop that never ends" in text


def test_a_slow_challenge_that_never_returns_still_ends_within_30_seconds(aftermath):
    run = run_of(aftermath, "count_boxes_infinite_loop")
    assert run.outcomes()[0] == "timeout" and set(run.outcomes()[1:]) == {"skipped"}


def test_a_memory_bomb_is_stopped_and_named(aftermath):
    run = run_of(aftermath, "memory_bomb")
    example = run.test("example_1")
    assert (example["outcome"], example["detail"]["problem"]) == ("error", "memory")


def test_a_fork_bomb_starts_nothing(aftermath):
    run = run_of(aftermath, "fork_bomb")
    assert run.outcomes()[0] in ("timeout", "error")
    assert not [line for line in aftermath.marked_processes if "fork" in line]


def test_a_daemon_started_while_loading_does_not_outlive_the_check(aftermath):
    assert run_of(aftermath, "daemon_at_import").report["status"] == "checked"
    assert not [line for line in aftermath.marked_processes if "daemon" in line]


def test_a_flood_of_output_is_capped_and_never_reaches_the_terminal(aftermath):
    for name in ("print_flood", "fd_write_flood"):
        run = run_of(aftermath, name)
        assert len(run.stdout) < 100_000 and len(run.text) < 20_000, name
        assert "FLOOD-menace" not in run.stdout + run.stderr + run.text


def test_endless_recursion_is_named(aftermath):
    run = run_of(aftermath, "deep_recursion")
    assert run.test("example_1")["detail"]["problem"] == "recursion"
    assert "kept calling itself" in run.text
    assert "995 more times" in run.text or "more times" in run.text


def test_recursion_past_a_raised_limit_stops_python_and_is_given_up_after_a_few_tries(aftermath):
    run = run_of(aftermath, "recursion_limit_raised")
    if sys.version_info >= (3, 12):  # Python guards its own C stack: a RecursionError, every call
        assert run.test("example_1")["detail"]["problem"] == "recursion"
        assert "passed" not in run.outcomes()
    else:
        assert run.test("example_1")["detail"]["problem"] == "crashed"
        assert run.outcomes().count("error") <= 3 and "skipped" in run.outcomes()
    python_only = run_of(aftermath, "recursion_limit_raised_python")
    assert python_only.outcomes()[0] in ("timeout", "error")


def test_sys_exit_in_a_call_is_an_error_not_the_end_of_checking(aftermath):
    run = run_of(aftermath, "sys_exit_in_call")
    example = run.test("example_1")
    assert (example["outcome"], example["detail"]["error_type"]) == ("error", "SystemExit")


def test_os_exit_in_a_call_stops_python_and_is_given_up_after_a_few_tries(aftermath):
    run = run_of(aftermath, "os_exit_in_call")
    assert run.test("example_1")["detail"]["problem"] == "crashed"
    assert run.outcomes().count("error") <= 3 and "skipped" in run.outcomes()


@pytest.mark.parametrize("name", ["kills_parent", "kills_everything"])
def test_killing_other_processes_harms_only_the_submission(aftermath, name):
    run = run_of(aftermath, name)
    assert run.report["status"] == "checked"
    assert all(outcome in ("error", "skipped", "failed") for outcome in run.outcomes())


# -- cheating ------------------------------------------------------------------------------


def test_fake_results_printed_by_the_submission_cannot_pose_as_a_verdict(aftermath):
    run = run_of(aftermath, "fake_results")
    text = run.text
    assert not re.search(r"[\x1b\r\u202e]", text), "terminal control characters got through"
    verdicts = [line for line in text.splitlines() if line.startswith(("✓", "✗"))]
    assert not any("passes all" in line for line in verdicts), verdicts
    assert "Score " in text and not run.report["passed"]


def test_a_search_of_the_disk_finds_no_tests_and_no_reference(aftermath):
    run = run_of(aftermath, "searches_disk")
    assert run.test("example_1")["detail"]["got"] == "[]"


def test_the_callers_frames_hold_no_expected_values(aftermath):
    # Nothing refuses the frames or the garbage collector (the standard library uses both):
    # they hold only the harness, since expected values never enter the child. What the
    # walk finds is no answer, and the file needs review for what its source does.
    run = run_of(aftermath, "inspects_frames")
    example = run.test("example_1")
    assert example["outcome"] == "failed" and example["detail"]["problem"] == "wrong_type"
    assert all(t["outcome"] != "passed" for t in run.report["tests"] if "change" not in t["name"])
    assert "walks the call stack (`sys._getframe`)" in code_findings(run)
    assert "needs review" in run.text


def test_forged_replies_on_every_file_descriptor_do_not_pass(aftermath):
    run = run_of(aftermath, "forges_replies")
    assert not any(o == "passed" for o in run.outcomes())


def test_forged_garbage_messages_are_a_crash_of_the_submission_not_of_the_grader(aftermath):
    run = run_of(aftermath, "forges_garbage")
    assert "Traceback" not in run.stderr
    assert run.report["passed"] is False


# -- escaping --------------------------------------------------------------------------------


def test_the_network_cannot_be_reached_from_inside(aftermath):
    run = run_of(aftermath, "network")
    got = run.test("example_1")["detail"]["got"]
    assert "127.0.0.1" in got and "1.1.1.1" in got and "connected" not in got
    assert aftermath.connections == 0


def test_nothing_is_written_outside_the_sandbox(aftermath):
    run = run_of(aftermath, "writes_outside")
    got = run.test("example_1")["detail"]["got"]
    assert "/box/submission.py written" not in got and "/box/harness.py written" not in got
    for place in (Path("/tmp"), REPO, aftermath.workdir, Path.home()):
        assert not (place / ESCAPE_NAME).exists(), place / ESCAPE_NAME
    starter = (REPO / "challenges" / "after_game" / "starter.py").read_text(encoding="utf-8")
    assert MARKER not in starter


# -- issue 8: the attacks that got through, tried again -------------------------------------


def sandbox_findings(run: Run) -> list[str]:
    return [f["what"] for f in run.report["integrity"] if f["source"] == "sandbox"]


def code_findings(run: Run) -> list[str]:
    return [f["what"] for f in run.report["integrity"] if f["source"] == "code"]


def test_a_child_that_stops_reading_and_forges_replies_cannot_hang_the_grader(aftermath):
    # F_SETPIPE_SZ + FIONREAD/tee peeking + replies with the right id and nonce (read from
    # the harness's frame, which nothing refuses): the first call never returns. The
    # grader's writes have deadlines, so the check ends; what the forged replies earn is
    # what the right answers they carry earn, never a pass: the file needs review.
    run = run_of(aftermath, "hangs_the_grader")
    assert run.code == 1  # it ended, with a verdict
    assert run.report["passed"] is False and run.report["score"] < run.report["max_score"]
    assert "timeout" in run.outcomes() or "error" in run.outcomes()
    assert "walks the call stack (`sys._getframe`)" in code_findings(run)
    assert "needs review" in run.text


def test_shared_memory_cannot_hold_memory_past_the_cap(aftermath):
    # The answer is right, but the shared memory never exists: ctypes loads, and the
    # seccomp filter refuses shmget (tests/core/test_seccomp.py runs each refused call).
    run = run_of(aftermath, "shm_over_memory_cap")
    assert run.report["score"] == run.report["max_score"] and run.report["passed"] is False
    assert "imports `ctypes` (raw memory and system calls)" in code_findings(run)
    assert "needs review" in run.text


def test_a_keyring_note_never_reaches_the_next_sandbox(aftermath, tmp_path):
    first = run_of(aftermath, "keyring_note")
    again = Run(
        "keyring_note",
        "after_game",
        *run_check(aftermath.workdir / "keyring_note.py", "after_game", tmp_path),
    )
    assert again.code == 1
    for run in (first, again):
        got = run.test("example_1")["detail"]["got"]
        assert "menace-keyring-note" not in got, got
        assert run.report["passed"] is False and run.report["integrity"]


def test_a_forged_args_after_does_not_hide_a_changed_input(aftermath):
    # Replacing the harness's answer through import __main__ finds an empty __main__.
    run = run_of(aftermath, "forges_args_after")
    changed = [t for t in run.report["tests"] if t["outcome"] != "passed"]
    assert run.test("example_1")["detail"]["problem"] == "changed_input"
    assert run.report["score"] == 10.0 and len(changed) == 5  # what the honest mutating function gets
    assert "imports `__main__` (where the grader's harness runs)" in code_findings(run)


def test_the_harness_is_out_of_reach_through_sys_stdouts_class(aftermath):
    # type(sys.stdout).write.__globals__ once led to the harness's copy of the builtins,
    # which its message writer calls: swapping enumerate there forged the arguments after
    # the call and dropped the recorded attempts (15/15, a clean pass).
    run = run_of(aftermath, "forges_through_stdouts_class")
    changed = [t for t in run.report["tests"] if t["outcome"] != "passed"]
    assert run.test("example_1")["detail"]["problem"] == "changed_input"
    assert run.report["score"] == 10.0 and len(changed) == 5  # what the honest mutating function gets
    assert "reads a function's globals (`__globals__`)" in code_findings(run)


def held_files() -> list[Path]:
    folders = ("/tmp", "/var/tmp", "/dev/shm")
    return [path for folder in folders for path in Path(folder).glob("menace-held-*")]


@pytest.mark.parametrize("sandbox", ["bwrap", "process"])
def test_files_in_tmp_and_dev_shm_hold_little_and_are_gone_after_the_check(aftermath, sandbox):
    # /dev/shm is memory the address-space cap does not count, and a file in the host's
    # /tmp outlives the check. Each sandbox has scratch folders of its own (16 MB each),
    # gone with it; the process sandbox only as root (as a user it is that user's /tmp).
    if sandbox == "process" and os.geteuid() != 0:
        pytest.skip("without root the process sandbox shares the user's folders (README)")
    path = aftermath.workdir / "holds_memory_in_files.py"
    report = run_of(aftermath, "holds_memory_in_files").report if sandbox == "bwrap" else None
    report = report or check_with(path, "--sandbox", sandbox, env={})
    assert report["sandbox"] == sandbox and report["score"] == 0.0  # it answers only past 200 MB
    kept = ast.literal_eval(report["printed_at_load"].strip())  # what the file says it held
    assert all(megabytes <= 16 for folder, megabytes in kept.items() if folder != "memfd"), kept
    # memfd_create is refused by the seccomp filter in both sandboxes (tests/core/test_seccomp.py);
    # without a filter: open files (64) of at most 1 MB each (the file size limit)
    assert kept["memfd"] <= (0 if seccomp.supported() else 64), kept
    assert held_files() == []


def test_forged_infinity_and_huge_numbers_are_the_submissions_problem_not_a_grader_error(aftermath):
    run = run_of(aftermath, "forges_infinity")
    assert run.report["status"] == "load_error" and "Traceback" not in run.stderr + run.stdout
    assert "stopped Python while it was loading" in run.report["load_problem"]["message"]
    assert "wrote a message to the grader that the harness did not send" in sandbox_findings(run)


def test_slow_restarts_are_charged_and_end_the_checks(aftermath):
    # Crash once, then hang every reload: the reload's timeout is charged and ends the calls.
    run = run_of(aftermath, "slow_restarts")
    outcomes = run.outcomes()
    # one crash, one reload that timed out, then nothing: not a reload per test
    assert outcomes[:2] == ["error", "timeout"] and set(outcomes[2:]) == {"skipped"}


def test_the_process_sandbox_never_runs_student_code_as_the_graders_user(aftermath, tmp_path):
    # Issue 8 item 9: as root, with a Python nobody can read, --sandbox process ran the file
    # as root: it read the reference through /proc/<grader>/cwd and rewrote the example cache.
    cache = tmp_path / "cache"
    env = {"MENACE_CACHE_DIR": str(cache)}
    buggy = REPO / "examples" / "after_game_buggy.py"
    before = check_with(buggy, "--sandbox", "bwrap", env=env)
    attack = check_with(aftermath.workdir / "reads_the_grader_via_proc.py", "--sandbox", "process", env=env)
    after = check_with(buggy, "--sandbox", "bwrap", env=env)
    assert attack["sandbox"] == "process" and attack["passed"] is False
    seen = " ".join(attack["tests"][0]["detail"]["got"] or "")
    assert "read " not in seen and "poisoned" not in seen
    verdicts = [[(t["name"], t["outcome"], t["points"]) for t in r["tests"]] for r in (before, after)]
    assert after["score"] == before["score"] and verdicts[0] == verdicts[1]
    assert oct(cache.stat().st_mode & 0o777) == "0o700" and (cache / ".key").stat().st_mode & 0o077 == 0


def check_with(path: Path, *options: str, env: dict[str, str]) -> dict:
    argv = [sys.executable, "-m", "menace_course", "check", str(path), "--challenge", "after_game"]
    argv += ["--format", "json", "--course", str(REPO), *options]
    done = subprocess.run(
        argv, capture_output=True, timeout=check_timeout("after_game"), check=False, env={**os.environ, **env}
    )
    assert "Traceback" not in done.stderr.decode(), done.stderr.decode()
    return json.loads(done.stdout)


def test_menace_grade_ends_on_the_attacks_and_lists_the_tampering_for_review(aftermath, tmp_path):
    # The attacks that hung, forged or dodged the budget, in one class with an honest answer:
    # grades.csv is written, nobody tampering passes, and report.html lists them for review.
    submissions = tmp_path / "submissions"
    submissions.mkdir()
    attacks = (
        "hangs_the_grader",
        "forges_args_after",
        "slow_restarts",
        "shm_over_memory_cap",
        "forges_infinity",
    )
    for name in attacks:
        (submissions / f"{name}.py").write_bytes((aftermath.workdir / f"{name}.py").read_bytes())
    (submissions / "honest.py").write_bytes((REPO / "examples" / "after_game_student.py").read_bytes())
    out = tmp_path / "out"
    argv = [sys.executable, "-m", "menace_course", "grade", str(submissions), "--challenge", "after_game"]
    argv += ["--out", str(out), "--course", str(REPO), "--jobs", "2"]
    done = subprocess.run(
        argv, capture_output=True, text=True, timeout=6 * check_timeout("after_game"), check=False
    )
    assert "Traceback" not in done.stderr, done.stderr
    with (out / "grades.csv").open(newline="", encoding="utf-8") as handle:
        rows = {row["student"]: row for row in csv.DictReader(handle)}
    assert set(rows) == {*attacks, "honest"}
    assert rows["honest"]["status"] == "passed"
    assert all(rows[name]["status"] != "passed" for name in attacks)
    assert rows["shm_over_memory_cap"]["reason"].startswith("needs review: ")
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Needs review" in report
    for name in ("hangs_the_grader", "forges_args_after", "shm_over_memory_cap", "forges_infinity"):
        assert name in report.split("Needs review", 1)[1], name


# -- issue 20: the guard switched off from inside; grades do not rest on it ------------------


@pytest.mark.parametrize("name", ["bypass_marshal_loads", "bypass_str_file_name", "bypass_del_of_a_request"])
def test_a_harness_rewritten_from_inside_earns_no_more_than_the_honest_function(aftermath, name):
    # Each file switches the old guard off (its own way), rewrites the harness's encode so
    # that the arguments after a call look untouched, and empties the recorded attempts:
    # 15/15 (14/15), "passed". A second call on the same list shows the change whatever
    # the child reports, so it gets what the honest changes_input gets: 10/15.
    run = run_of(aftermath, name)
    honest = run_of(aftermath, "changes_input")
    not_passed = [t["name"] for t in run.report["tests"] if t["outcome"] != "passed"]
    assert run.report["passed"] is False and run.code == 1
    assert run.report["score"] == honest.report["score"] == 10.0
    assert not_passed == [t["name"] for t in honest.report["tests"] if t["outcome"] != "passed"]
    # Seen in the forged report, or (when it says "unchanged") by the second call's other answer.
    assert run.test("example_1")["detail"]["problem"] in ("changed_input", "flaky")


def test_a_file_that_tries_to_read_the_machines_secrets_or_a_socket_while_loading_needs_review(aftermath):
    run = run_of(aftermath, "reads_secrets_at_load")
    assert run.report["score"] == run.report["max_score"]  # its function is right ...
    assert run.report["passed"] is False  # ... but it is never a clean pass
    found = sandbox_findings(run)
    assert "opened a network socket while running" in found
    assert any("tried something" in what for what in found)  # the path is the instructor's only
    assert "/etc/shadow" not in json.dumps(run.report)


def test_the_instructors_record_names_the_file_it_tried_to_read():
    from menace_course.checking.pipeline import check_submission
    from menace_course.checking.suite import load_suite
    from menace_course.course import find_course

    source = (REPO / "tests" / "corpus" / "hostile" / "reads_secrets_at_load.py").read_bytes()
    suite = load_suite(find_course(REPO), "after_game")
    report = check_submission(("after_game.py", source), suite, "process")
    assert any("/etc/shadow" in f.what for f in report.integrity), report.integrity
    assert report.needs_review and not report.passed
