"""The zygote's boxes: each is a sandbox of its own, as one started from scratch is.

A box is forked from a started interpreter instead of starting Python (issue 26), so
these tests look from inside two boxes in a row, as root and as an ordinary user: no
capability left, nobody's uid, a fresh pid namespace, an empty ``/tmp`` although the box
before wrote to its own, only the submission at ``/box`` and no other box's folder, and
random numbers of its own. Crashes end with the exit codes bubblewrap gives, and a zygote
that cannot make boxes is the grader's failure, never the student's.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from menace_course.limits import Limits
from menace_course.sandbox import launch, zygote
from menace_course.sandbox.child import Child
from menace_course.sandbox.outcomes import SandboxFailure
from tests.support import REPO, SELF_ENDINGS, descendants, processes

pytestmark = pytest.mark.skipif(not launch.bwrap_works(), reason="bubblewrap cannot run here")

LOOK = """
import os, random


def look():
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)
    capabilities = (ctypes.c_uint32 * 6)()
    libc.capget(header, capabilities)
    return {
        "pid": os.getpid(),
        "uid": os.getuid(),
        "capabilities": list(capabilities),
        "tmp": sorted(os.listdir("/tmp")),
        "box": sorted(os.listdir("/box")),
        "zygote folder": sorted(os.listdir("/zygote")) if os.path.isdir("/zygote") else [],
        "random": random.random(),
    }


def leave():
    with open("/tmp/left-behind", "w") as file:
        file.write("the box before")
    random.random()  # the next box draws from the harness's seed afresh, not from here on
    return True
"""

#: Run by a Python of its own (as root, or as nobody): two boxes in a row, then the endings.
SCENARIO = textwrap.dedent(
    """
    import json, sys
    from menace_course.limits import Limits
    from menace_course.sandbox import zygote
    from menace_course.sandbox.child import Child

    zygote.enable()  # as a grader process that checks file after file does
    look, endings = json.loads(sys.stdin.read())
    seen = []
    for _ in range(2):
        with Child(look, "bwrap", Limits()) as child:
            assert child.load().status == "ready"
            seen.append(child.call("look", []).result)
            assert child.call("leave", []).result is True
    codes = {}
    for name, source in endings.items():
        with Child(source, "bwrap", Limits()) as child:
            codes[name] = child.load().exit_code
    print(json.dumps({"seen": seen, "codes": codes, "zygote": zygote._zygote is not None}))
    """
)


def run_scenario(as_user: str, zygote_switch: str, request: pytest.FixtureRequest) -> dict[str, Any]:
    """Run :data:`SCENARIO` in a fresh Python, as root or as an ordinary user (nobody)."""
    # In /tmp itself: pytest's own folder is root's alone, and nobody could not enter it.
    home = Path(tempfile.mkdtemp(prefix="menace-zygote-test-"))
    request.addfinalizer(lambda: shutil.rmtree(home, ignore_errors=True))
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "MENACE_ZYGOTE": zygote_switch,
        "PYTHONPATH": str(REPO),
    }
    if as_user == "root":
        command = [sys.executable, "-c", SCENARIO]
    else:
        # The venv's Python is under /root, which nobody cannot read: Debian's runs the
        # grader's side (the sandbox's modules need nothing outside the standard library).
        os.chown(home, 65534, 65534)
        command = [
            "setpriv",
            "--reuid",
            "65534",
            "--regid",
            "65534",
            "--clear-groups",
            "/usr/bin/python3",
            "-c",
            SCENARIO,
        ]
    endings = {name: source for name, (source, _code) in SELF_ENDINGS.items()}
    done = subprocess.run(
        command,
        input=json.dumps([LOOK, endings]),
        capture_output=True,
        text=True,
        env=env,
        cwd=home,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return found


def users() -> list[str]:
    """Root, and an ordinary user where this test can become one."""
    if os.geteuid() != 0:
        return ["ordinary user"]
    ordinary = shutil.which("setpriv") and Path("/usr/bin/python3").exists()
    return ["root", "ordinary user"] if ordinary else ["root"]


@pytest.mark.parametrize("as_user", users())
def test_each_box_is_a_fresh_sandbox_with_nothing_of_the_box_before(
    as_user: str, request: pytest.FixtureRequest
) -> None:
    found = run_scenario(as_user, "on", request)

    assert found["zygote"] is True
    first, second = found["seen"]
    for look in (first, second):
        assert look["capabilities"] == [0, 0, 0, 0, 0, 0]
        assert look["uid"] == 65534
        assert look["pid"] == 2  # below the box's own init, in a pid namespace of its own
        assert look["tmp"] == []  # the box before left a file in its /tmp: not here
        assert look["box"] == ["submission.py"]
        assert look["zygote folder"] == []  # no other submission's folder is in sight
    assert first["random"] == second["random"]


@pytest.mark.parametrize("as_user", users())
def test_a_box_ends_with_the_exit_codes_a_sandbox_started_from_scratch_gives(
    as_user: str, request: pytest.FixtureRequest
) -> None:
    in_boxes = run_scenario(as_user, "on", request)
    from_scratch = run_scenario(as_user, "off", request)

    assert in_boxes["zygote"] is True and from_scratch["zygote"] is False
    expected = {name: code for name, (_source, code) in SELF_ENDINGS.items()}
    assert in_boxes["codes"] == expected
    assert from_scratch["codes"] == expected


@pytest.fixture
def own_zygote(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This test's zygotes are its own: the shared one is stopped before and after."""
    monkeypatch.setenv(zygote.SWITCH, "on")
    monkeypatch.setattr(zygote, "_enabled", True)
    stop_the_shared_zygote()
    yield
    stop_the_shared_zygote()


def stop_the_shared_zygote() -> None:
    """Stop this process's zygote, and forget any failure: the next sandbox starts a new one."""
    zygote.forget_broken()
    zygote._failed_at = None


def processes_below(pid: int) -> set[int]:
    """The live (not zombie) processes descended from ``pid``."""
    return descendants(pid, processes())


@pytest.mark.usefixtures("own_zygote")
def test_closing_a_box_ends_every_process_in_it() -> None:
    source = "import time\n\ndef wait():\n    time.sleep(60)\n"
    with Child(source, "bwrap", Limits()) as warm_up:
        warm_up.load()
    made = zygote.shared()
    assert made is not None
    before = processes_below(made._process.pid)

    worker = Child(source, "bwrap", Limits(call_seconds=0.5))
    assert worker.load().status == "ready"
    assert len(processes_below(made._process.pid)) > len(before)
    worker.close()

    assert processes_below(made._process.pid) == before


@pytest.mark.usefixtures("own_zygote")
def test_a_dead_zygote_is_replaced_and_the_next_check_still_runs() -> None:
    with Child("def f():\n    return 1\n", "bwrap", Limits()) as worker:
        assert worker.call("f", []).result == 1
    first = zygote.shared()
    assert first is not None
    first._process.kill()
    first._process.wait()

    with Child("def f():\n    return 2\n", "bwrap", Limits()) as worker:
        assert worker.call("f", []).result == 2
    assert zygote.shared() is not first


def sandbox_failure_of_a_zygote_without(capability: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """What a check's load raises when the zygote's bubblewrap is not given ``capability``."""
    real = launch.bwrap_base

    def without(tmp_bytes: int, *, zygote: bool = False) -> tuple[list[str], dict[str, str]]:
        argv, env = real(tmp_bytes, zygote=zygote)
        index = argv.index(capability)
        return argv[: index - 1] + argv[index + 1 :], env

    monkeypatch.setattr(zygote, "bwrap_base", without)
    with (
        Child("def f():\n    return 1\n", "bwrap", Limits()) as worker,
        pytest.raises(SandboxFailure) as failure,
    ):
        worker.load()
    return str(failure.value)


@pytest.mark.usefixtures("own_zygote")
def test_a_zygote_that_cannot_make_boxes_is_the_graders_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    failure = sandbox_failure_of_a_zygote_without("CAP_SYS_ADMIN", monkeypatch)
    assert "could not be set up" in failure
    assert "unshare" in failure


@pytest.mark.usefixtures("own_zygote")
@pytest.mark.skipif(os.geteuid() != 0, reason="only a root-launched sandbox drops privileges itself")
def test_a_box_that_cannot_drop_to_nobody_is_the_graders_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    failure = sandbox_failure_of_a_zygote_without("CAP_SETUID", monkeypatch)
    assert "PermissionError" in failure or "Operation not permitted" in failure


@pytest.mark.usefixtures("own_zygote")
def test_a_box_has_imported_what_a_sandbox_started_from_scratch_has(monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing of the zygote's own (its socket, select, array, gc's frozen state) is left
    # in sys.modules for student code to find: the same modules either way.
    source = "import sys\n\ndef modules():\n    return sorted(sys.modules)\n"
    found = {}
    for switch in ("off", "on"):
        monkeypatch.setenv(zygote.SWITCH, switch)
        with Child(source, "bwrap", Limits()) as worker:
            found[switch] = worker.call("modules", []).result
    assert found["on"] == found["off"]
    assert zygote._zygote is not None


@pytest.mark.usefixtures("own_zygote")
def test_a_box_ends_when_the_grader_that_asked_for_it_is_killed() -> None:
    # The grader is not the box's parent: the box's init watches the grader's end of its
    # control socket, which the kernel closes when the grader dies.
    with Child("def f():\n    return 1\n", "bwrap", Limits()) as warm_up:
        warm_up.load()
    made = zygote.shared()
    assert made is not None
    before = processes_below(made._process.pid)
    ready_read, ready_write = os.pipe()
    grader = os.fork()
    if grader == 0:  # a grader whose check hangs, killed before it can close its box
        try:
            worker = Child("import time\nwhile True:\n    time.sleep(1)\n", "bwrap", Limits())
            worker.spawn()
            worker._box_started()
            os.write(ready_write, b"x")
            time.sleep(60)
        finally:
            os._exit(0)
    os.close(ready_write)
    assert os.read(ready_read, 1) == b"x"
    os.close(ready_read)
    assert len(processes_below(made._process.pid)) > len(before)

    os.kill(grader, signal.SIGKILL)
    os.waitpid(grader, 0)

    deadline = time.monotonic() + 10
    while processes_below(made._process.pid) != before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_below(made._process.pid) == before
