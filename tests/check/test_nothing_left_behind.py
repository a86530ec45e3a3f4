"""A submission that leaves things behind everywhere it can: the next submission sees none of it.

One sandbox per submission is what makes speed-ups safe (issue 26): whatever a check keeps
warm, no state of one submission may reach the next. The first file below, while it loads
and at every call, leaves a module global, files in ``/tmp``, ``/var/tmp``, ``/dev/shm``,
its folder and its home, an environment variable, a new builtin and a patched one, a
module in ``sys.modules``, an attribute on a standard module, an ``atexit`` handler that
writes a file, and a thread that goes on writing one. The second file, checked next by the
same grader process, looks for every one of them. The first file looks too, after leaving
them, so that each look is shown to find what it looks for.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from menace_course.catalog import load_challenge
from menace_course.checking import pipeline
from menace_course.course import find_course
from tests.support import REPO

TOKEN = "menace-leftover-5b1e"

LOOK = f'''
import builtins, os, sys, threading, random

TOKEN = "{TOKEN}"
FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", os.getcwd(), os.path.expanduser("~"))


def look():
    seen = set()
    for folder in FOLDERS:
        for suffix in ("", "-atexit", "-thread"):
            if os.path.exists(os.path.join(folder, TOKEN + suffix)):
                seen.add("file" + suffix)
    if os.environ.get("MENACE_LEFTOVER") == TOKEN:
        seen.add("environment")
    if getattr(builtins, "menace_leftover", None) == TOKEN:
        seen.add("new builtin")
    if builtins.sorted([2, 1]) != [1, 2]:
        seen.add("patched builtin")
    if "menace_leftover" in sys.modules:
        seen.add("sys.modules")
    if getattr(random, "menace_leftover", None) == TOKEN:
        seen.add("standard module")
    if "left_behind" in globals():
        seen.add("module global")
    if any(t.name == TOKEN for t in threading.enumerate()):
        seen.add("thread")
    return sorted(seen)


def after_game(beads, square, result):
    leave()
    return look()


def leave():
    pass
'''

LEAVE = """
import atexit, time, types

left_behind = []
_real_sorted = builtins.sorted


def _keep_writing():
    while True:
        for folder in FOLDERS:
            try:
                with open(os.path.join(folder, TOKEN + "-thread"), "w") as file:
                    file.write("still here")
            except OSError:
                pass
        time.sleep(0.01)


def _write_at_exit():
    for folder in FOLDERS:
        try:
            with open(os.path.join(folder, TOKEN + "-atexit"), "w") as file:
                file.write("at exit")
        except OSError:
            pass


def leave():
    left_behind.append(1)
    for folder in FOLDERS:
        try:
            with open(os.path.join(folder, TOKEN), "w") as file:
                file.write("left")
        except OSError:
            pass
    os.environ["MENACE_LEFTOVER"] = TOKEN
    builtins.menace_leftover = TOKEN
    builtins.sorted = lambda items, **_: list(items)
    sys.modules["menace_leftover"] = types.ModuleType("menace_leftover")
    random.menace_leftover = TOKEN
    atexit.register(_write_at_exit)
    if not any(t.name == TOKEN for t in threading.enumerate()):
        try:
            threading.Thread(target=_keep_writing, name=TOKEN, daemon=True).start()
            time.sleep(0.05)  # the thread has written its file
        except RuntimeError:  # the sandbox's process limit refuses threads: nothing left there
            pass


leave()
"""

#: What the first file's own look finds of what it left (each probe below is seen to work).
#: A thread, and the file it writes, only where the sandbox lets a thread start (bubblewrap's
#: and the process sandbox's process limit refuse it).
EVERYTHING = {
    "environment",
    "file",
    "module global",
    "new builtin",
    "patched builtin",
    "standard module",
    "sys.modules",
}


def _answers(kind: str, source: str, calls: int) -> list[object]:
    challenge = load_challenge(find_course(REPO), "after_game")
    # open_submission takes what it checks against: a pipeline.Target where the pipeline has
    # one (the suites branch narrows it to that), else the challenge itself.
    target = pipeline.Target.of(challenge) if hasattr(pipeline, "Target") else challenge
    sandbox = "bwrap" if kind == "zygote" else kind
    with pipeline.open_submission(("after_game.py", source.encode()), target, sandbox) as opened:  # type: ignore[arg-type]
        assert opened.proxy is not None, opened.why_not
        return [opened.proxy.after_game([0] * 9, 0, "win") for _ in range(calls)]


def _kinds() -> list[object]:
    as_root = pytest.mark.skipif(
        os.geteuid() != 0,
        reason="as an ordinary user the process sandbox is documented as no boundary (README)",
    )
    return [
        pytest.param("bwrap", marks=pytest.mark.bwrap),
        pytest.param("zygote", marks=pytest.mark.bwrap, id="bwrap-forked-from-a-zygote"),
        pytest.param("process", marks=as_root),
    ]


@pytest.fixture(autouse=True)
def sandboxes_of(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """``zygote``: bubblewrap sandboxes forked from a zygote (sandbox/zygote.py), as a grader may."""
    from menace_course.sandbox import zygote

    monkeypatch.setenv(zygote.SWITCH, "on" if kind == "zygote" else "off")
    monkeypatch.setattr(zygote, "_enabled", kind == "zygote")


@pytest.mark.parametrize("kind", _kinds())
def test_the_next_submission_sees_nothing_the_last_one_left(kind):
    from menace_course.sandbox import zygote

    left = _answers(kind, LOOK + LEAVE, calls=2)
    assert EVERYTHING <= set(left[-1])  # the leaver sees all it left: the looks work
    if kind == "zygote":
        assert zygote._zygote is not None and zygote._zygote.alive()  # the boxes were a zygote's
    assert _answers(kind, LOOK, calls=1) == [[]]
    assert _answers(kind, LOOK, calls=1) == [[]]  # and its atexit handler ran nowhere that counts


@pytest.mark.parametrize("kind", _kinds())
def test_what_a_submission_leaves_in_its_own_tmp_never_reaches_the_grader_machine(kind):
    _answers(kind, LOOK + LEAVE, calls=1)
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        for suffix in ("", "-atexit", "-thread"):
            assert not (Path(folder) / (TOKEN + suffix)).exists()
