"""The warm checker serves ``menace check`` exactly as the check would run in its own process.

Every test starts a real warm checker (the first ``menace check`` starts it in the
background) in a cache folder of its own, and stops it at the end. The suite as a whole runs
with ``MENACE_WARM=off`` (``tests/conftest.py``); here it is turned on. How much faster a
check is with it is measured in ``bench/bench_check.py``, never asserted here.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from menace_course.warm import client, server
from menace_course.warm.stamp import socket_path, stamp
from tests.support import REPO, copy_course, descendants, processes

pytestmark = [pytest.mark.slow, pytest.mark.bwrap]

CORRECT = REPO / "examples" / "after_game_student.py"
BUGGY = REPO / "examples" / "after_game_buggy.py"
HANGS_AT_LOAD = "while True:\n    pass\n\n\ndef after_game(box, square, result):\n    return box\n"


def menace(*args: str, cwd: Path = REPO, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m menace_course ARGS``, as a student starts it (the warm checker may serve it)."""
    return subprocess.run(
        [sys.executable, "-m", "menace_course", *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def statuses() -> list[dict[str, object]]:
    """What every warm checker of this test's cache folder says about itself."""
    return [answer for answer in (client.ask(path, "status") for path in client.running()) if answer]


def wait_for(condition, seconds: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"still not true after {seconds} s: {condition.__doc__ or condition}")
        time.sleep(0.1)


@pytest.fixture
def warm(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A cache folder of this test's own (short: a socket's path is limited), the checker on."""
    cache = Path(tempfile.mkdtemp(prefix="mw-", dir="/tmp"))
    monkeypatch.setenv("MENACE_CACHE_DIR", str(cache))
    monkeypatch.setenv("MENACE_WARM", "on")
    monkeypatch.setenv("MENACE_WARM_IDLE", "120")
    try:
        yield cache
    finally:
        pids = [int(str(answer["pid"])) for answer in statuses()]
        for path in client.running():
            client.ask(path, "stop")
        for pid in pids:
            wait_for(lambda pid=pid: not Path(f"/proc/{pid}").exists() or _zombie(pid))
        shutil.rmtree(cache, ignore_errors=True)


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z"
    except OSError:
        return True


def started_warm_checker() -> dict[str, object]:
    """Run a first check (it starts the warm checker) and wait until the warm checker answers."""
    first = menace("check", str(CORRECT))
    assert first.returncode == 0, first.stderr
    wait_for(lambda: bool(statuses()))
    (answer,) = statuses()
    return answer


def without_timing(output: str) -> object:
    """A JSON report without the seconds each part took (they differ from run to run)."""

    def strip(value: object) -> object:
        if isinstance(value, dict):
            return {key: strip(item) for key, item in value.items() if key != "seconds"}
        if isinstance(value, list):
            return [strip(item) for item in value]
        return value

    return strip(json.loads(output))


def test_a_warm_check_prints_and_exits_exactly_as_a_check_in_its_own_process(warm, tmp_path):
    first = started_warm_checker()
    broken = tmp_path / "after_game.py"
    broken.write_text("def after_game(box, square, result)\n    return box\n", encoding="utf-8")
    shutil.copy(BUGGY, tmp_path / "mine.py")
    cases = [
        (("check", str(CORRECT)), REPO),
        (("check", str(BUGGY)), REPO),
        (("check", "after_game.py", "--course", str(REPO)), tmp_path),  # a syntax error, relative path
        (("check", "mine.py", "--challenge", "after_game", "--course", str(REPO)), tmp_path),
        (("check", "missing.py"), REPO),  # exit 2, one line
        (("check", str(BUGGY), "--format", "markdown", "--ascii"), REPO),
        (("check", "--help"), REPO),
    ]
    for args, cwd in cases:
        cold = menace(*args, cwd=cwd, MENACE_WARM="off")
        hot = menace(*args, cwd=cwd)
        assert (hot.returncode, hot.stdout, hot.stderr) == (cold.returncode, cold.stdout, cold.stderr), args
    # ``python -m`` puts its folder on sys.path, so another folder has a warm checker of its own.
    (same,) = [answer for answer in statuses() if answer["pid"] == first["pid"]]
    assert same["served"] == len([cwd for _, cwd in cases if cwd == REPO])
    as_json = [menace("check", str(BUGGY), "--format", "json", MENACE_WARM=w) for w in ("off", "on")]
    assert as_json[0].returncode == as_json[1].returncode == 1
    assert without_timing(as_json[0].stdout) == without_timing(as_json[1].stdout)


def in_a_terminal(*args: str, **env: str) -> tuple[int, bytes]:
    """``python -m menace_course ARGS`` with a terminal (a pty) for stdin, stdout and stderr."""
    import pty

    leader, follower = pty.openpty()
    student = subprocess.Popen(
        [sys.executable, "-m", "menace_course", *args],
        cwd=REPO,
        env={**os.environ, "COLUMNS": "100", **env},
        stdin=follower,
        stdout=follower,
        stderr=follower,
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed: every process holding it has ended
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return student.wait(timeout=60), shown


def test_a_warm_check_in_a_terminal_shows_the_same_colours(warm):
    first = started_warm_checker()
    cold = in_a_terminal("check", str(BUGGY), MENACE_WARM="off")
    hot = in_a_terminal("check", str(BUGGY))
    assert b"\x1b[" in cold[1]  # coloured: it is a terminal
    assert hot == cold
    (same,) = [answer for answer in statuses() if answer["pid"] == first["pid"]]
    assert same["served"] == 1


def test_a_warm_check_sees_the_students_environment_and_folder(warm, tmp_path):
    started_warm_checker()
    shutil.copy(CORRECT, tmp_path / "after_game.py")
    # The folder is the student's (after_game.py is only there), and so is the environment:
    # MENACE_SERVER, which the warm checker was not started with, sends the check away.
    elsewhere = menace("check", "after_game.py", cwd=tmp_path)
    assert elsewhere.returncode == 0 and "after_game.py" in elsewhere.stdout
    assert menace("check", "after_game.py").returncode == 2  # (not in the warm checker's folder)
    here = menace("check", "after_game.py", "--course", str(REPO), cwd=tmp_path)
    assert here.returncode == 0 and "after_game.py" in here.stdout
    server_unreachable = menace("check", "after_game.py", cwd=tmp_path, MENACE_SERVER="http://127.0.0.1:9")
    assert server_unreachable.returncode != 0
    assert "127.0.0.1:9" in server_unreachable.stdout + server_unreachable.stderr


def with_scratch(folder: Path) -> dict[str, str]:
    """The environment for a check whose scratch files go in ``folder/scratch`` (:func:`_sandboxes_of`)."""
    (folder / "scratch").mkdir(exist_ok=True)
    return {**os.environ, "TMPDIR": str(folder / "scratch")}


def test_ctrl_c_stops_a_warm_check_and_its_sandbox(warm, tmp_path):
    started_warm_checker()
    (tmp_path / "after_game.py").write_text(HANGS_AT_LOAD, encoding="utf-8")
    student = subprocess.Popen(
        [sys.executable, "-m", "menace_course", "check", str(tmp_path / "after_game.py")],
        cwd=REPO,  # (the warm checker's folder: python -m puts it on sys.path)
        env=with_scratch(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: any(answer["running"] for answer in statuses()))
    wait_for(lambda: bool(_sandboxes_of(tmp_path)))  # its sandbox is found while it runs
    student.send_signal(signal.SIGINT)
    _, err = student.communicate(timeout=30)
    assert student.returncode == 130
    assert "menace: stopped." in err
    wait_for(lambda: not any(answer["running"] for answer in statuses()))
    assert not _sandboxes_of(tmp_path)
    again = menace("check", str(CORRECT))
    assert again.returncode == 0


def test_a_copy_that_dies_mid_check_tells_the_student_it_was_not_their_mistake(warm, tmp_path):
    checker = started_warm_checker()
    (tmp_path / "after_game.py").write_text(HANGS_AT_LOAD, encoding="utf-8")
    student = subprocess.Popen(
        [sys.executable, "-m", "menace_course", "check", str(tmp_path / "after_game.py")],
        cwd=REPO,
        env=with_scratch(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    wait_for(lambda: bool(_sandboxes_of(tmp_path)))  # the copy is checking
    table = processes()
    copies = [
        pid
        for pid, (parent, command) in table.items()
        if parent == checker["pid"] and command == table[int(str(checker["pid"]))][1]
    ]
    assert len(copies) == 1, copies
    os.kill(copies[0], signal.SIGKILL)
    _, err = student.communicate(timeout=30)
    assert student.returncode == 1
    assert "the check stopped before it finished" in err and "not your mistake" in err, err
    wait_for(lambda: not _sandboxes_of(tmp_path))  # its box went with it
    assert menace("check", str(CORRECT)).returncode == 0


def test_student_code_in_the_sandbox_cannot_reach_the_warm_checker(warm, tmp_path):
    started_warm_checker()
    (path,) = client.running()
    reaching = (
        "import socket\n"
        "try:\n"
        "    s = socket.socket(socket.AF_UNIX)\n"
        f"    s.connect({str(path)!r})\n"
        "    print('reached the warm checker')\n"
        "except OSError as error:\n"
        "    print('not reached:', type(error).__name__)\n"
        "def after_game(box, square, result):\n"
        "    return box\n"
    )
    (tmp_path / "after_game.py").write_text(reaching, encoding="utf-8")
    done = menace("check", str(tmp_path / "after_game.py"), "--sandbox", "bwrap", "--format", "json")
    printed = json.loads(done.stdout)["printed_at_load"]
    assert printed.startswith("not reached"), printed


def test_a_check_whose_student_went_away_is_stopped(warm, tmp_path):
    started_warm_checker()
    (tmp_path / "after_game.py").write_text(HANGS_AT_LOAD, encoding="utf-8")
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    with out.open("w") as out_file, err.open("w") as err_file:
        student = subprocess.Popen(
            [sys.executable, "-m", "menace_course", "check", str(tmp_path / "after_game.py")],
            cwd=REPO,  # (the warm checker's folder: python -m puts it on sys.path)
            env=with_scratch(tmp_path),
            stdout=out_file,
            stderr=err_file,
        )
    wait_for(lambda: any(answer["running"] for answer in statuses()))
    wait_for(lambda: bool(_sandboxes_of(tmp_path)))  # its sandbox is found while it runs
    student.kill()
    student.wait(timeout=10)
    wait_for(lambda: not any(answer["running"] for answer in statuses()))
    # Stopped as by Ctrl-C, not left to run until the file's load time ran out.
    assert "menace: stopped." in err.read_text()
    assert "load" not in out.read_text()
    assert not _sandboxes_of(tmp_path)


def _sandboxes_of(folder: Path) -> list[int]:
    """Processes still running whose command line names the scratch files of a check in ``folder``.

    The check was given ``TMPDIR=folder/scratch``, so its sandbox (bubblewrap's command binds
    the scratch folder; a plain child names its harness there) names it: sandboxes of other
    checks on the machine, other tests' or other users', are not counted.
    """
    scratch = str(folder / "scratch").encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            command = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if scratch in command and not _zombie(int(proc.name)):
            found.append(int(proc.name))
    return found + _zygote_boxes_below([int(str(answer["pid"])) for answer in statuses()])


def _zygote_boxes_below(warm_checkers: list[int]) -> list[int]:
    """The live processes of the boxes that the warm checkers' zygotes forked (sandbox/zygote.py).

    The zygote is the Python that bubblewrap started with ``--zygote``; its boxes are every
    process below it. Only the zygotes below this test's warm checkers count: their boxes
    are this test's checks.
    """
    table = processes()
    below_warm_checkers = set().union(*(descendants(pid, table) for pid in warm_checkers))
    zygotes = [
        pid
        for pid in below_warm_checkers
        if "--zygote" in table[pid][1].split() and not table[pid][1].split()[0].endswith("bwrap")
    ]
    return sorted(set().union(*(descendants(pid, table) for pid in zygotes)))


def test_an_edited_package_is_never_checked_by_the_warm_checker_started_before(warm):
    old = started_warm_checker()
    edited = REPO / "menace_course" / "warm" / "__init__.py"
    before = edited.stat()
    try:
        os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        again = menace("check", str(CORRECT))
        assert again.returncode == 0
    finally:
        os.utime(edited, ns=(before.st_atime_ns, before.st_mtime_ns))
    (still,) = [answer for answer in statuses() if answer["pid"] == old["pid"]]
    assert still["served"] == old["served"]  # the new check ran without it


def warm_checker_processes(cache: Path) -> list[int]:
    """Live processes whose command line names this test's cache folder: its warm checkers."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if str(cache).encode() in command and b"menace_course.warm.server" in command:
            if not _zombie(int(entry.name)):
                found.append(int(entry.name))
    return found


def test_the_warm_checker_stops_when_idle_and_when_told(warm):
    # Idle for 1 s: it may stop before any status request reaches it (a busy machine), so
    # it is found by its command line, and its stop seen as the process ending.
    os.environ["MENACE_WARM_IDLE"] = "1"  # (restored by the fixture's monkeypatch)
    assert menace("check", str(CORRECT)).returncode == 0
    # It started: its lock file (made at start, kept after) is there ...
    wait_for(lambda: bool(list(warm.glob("warm/*.sock.lock"))), seconds=60)
    # ... and it stopped by itself: no socket answers, no process is left.
    wait_for(lambda: not statuses() and not warm_checker_processes(warm), seconds=60)
    assert not list(warm.glob("warm/*.sock"))
    os.environ["MENACE_WARM_IDLE"] = "120"
    started_warm_checker()
    stopped = menace("warm", "stop")
    assert stopped.returncode == 0 and "Stopped the warm checker" in stopped.stdout
    wait_for(lambda: not statuses())
    assert "No warm checker is running" in menace("warm", "status").stdout


def another_environment(tmp_path: Path) -> Path:
    """A second copy of the course and package (links to this one's), as a second clone would be."""
    other = tmp_path / "other-clone"
    other.mkdir()
    course = ("menace_course", "challenges", "hidden_tests", "reference", "feedback_templates", "examples")
    for name in course:
        (other / name).symlink_to(REPO / name)
    return other


def test_warm_stop_stops_only_this_environments_warm_checker_unless_all(warm, tmp_path):
    other = another_environment(tmp_path)
    started_warm_checker()
    assert menace("check", str(CORRECT), cwd=other).returncode == 0
    wait_for(lambda: len(statuses()) == 2)

    shown = menace("warm", "status").stdout
    assert shown.count("for this environment") == 1
    assert f"the package in {other / 'menace_course'}" in shown

    stopped = menace("warm", "stop")
    assert "Stopped the warm checker" in stopped.stdout
    assert "1 warm checker of other environments left running" in stopped.stdout
    wait_for(lambda: len(statuses()) == 1)
    (left,) = statuses()
    assert left["package"] == str(other / "menace_course")

    assert "Stopped the warm checker" in menace("warm", "stop", "--all").stdout
    wait_for(lambda: not statuses())


def test_menace_warm_off_never_starts_one(warm):
    done = menace("check", str(CORRECT), MENACE_WARM="off")
    assert done.returncode == 0
    time.sleep(1.0)
    assert not client.running()


def test_the_front_door_of_menace_loads_neither_click_nor_the_grader():
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, menace_course.warm.client, menace_course.warm.stamp, menace_course.warm.messages; "
            "print(' '.join(sys.modules))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    heavy = {
        "click",
        "jinja2",
        "rich",
        "typing",
        "signal",  # (its enums: the client passes signals on with _signal)
        "pathlib",
        "socket",
        "menace_course.cli",
        "menace_course.checking",
        "menace_course.models",
    }
    assert not heavy & set(loaded)


def test_a_warm_checks_copy_imports_nothing_the_warm_checker_had_not(tmp_path):
    """What a check imports after the fork it imports for every check: it belongs in WARM_MODULES."""
    script = (
        "import importlib, sys\n"
        "from menace_course.warm.server import WARM_MODULES\n"
        "for name in WARM_MODULES: importlib.import_module(name)\n"
        "from menace_course.warm.server import prepare_for_a_check\n"
        "prepare_for_a_check(probe=True)\n"
        "before = set(sys.modules)\n"
        "from menace_course.cli import main\n"
        f"sys.argv = ['menace', 'check', {str(CORRECT)!r}]\n"
        "try:\n    main()\nexcept SystemExit as stop:\n    code = stop.code\n"
        "new = sorted(set(sys.modules) - before)\n"
        "new = [n for n in new if not n.startswith(('menace_file_', 'encodings.'))]\n"
        "print(code, file=sys.stderr)\n"
        "print(' '.join(new), file=sys.stderr)\n"
    )
    env = {**os.environ, "MENACE_WARM": "off", "MENACE_CACHE_DIR": str(tmp_path)}
    # The first check of a cache generates the examples (hypothesis): a warm check finds them made.
    first = [sys.executable, "-m", "menace_course", "check", str(CORRECT)]
    subprocess.run(first, env=env, capture_output=True, timeout=120)
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, timeout=120
    )
    code, new = done.stderr.splitlines()[-2:]
    assert code == "0", done.stderr[-2000:]
    assert new.split() == []


def test_only_checks_of_a_plainly_started_menace_go_to_the_warm_checker(monkeypatch):
    monkeypatch.setenv("MENACE_WARM", "on")
    monkeypatch.setattr(sys, "orig_argv", ["python", "/venv/bin/menace", "check", "a.py"])
    assert client.wanted(["check", "a.py"])
    assert not client.wanted(["grade", "subs"])
    monkeypatch.setattr(sys, "orig_argv", ["python", "-m", "menace_course", "check", "a.py"])
    assert client.wanted(["check", "a.py"])
    monkeypatch.setattr(sys, "orig_argv", ["python", "-X", "importtime", "-m", "menace_course", "check"])
    assert not client.wanted(["check", "a.py"])
    monkeypatch.setenv("MENACE_WARM", "off")
    monkeypatch.setattr(sys, "orig_argv", ["python", "/venv/bin/menace", "check", "a.py"])
    assert not client.wanted(["check", "a.py"])


def test_the_stamp_changes_with_the_interpreters_environment_and_the_package(monkeypatch, tmp_path):
    monkeypatch.setenv("MENACE_CACHE_DIR", str(tmp_path))
    first = stamp()
    assert stamp() == first
    assert os.uname().nodename in first.splitlines()  # a shared home folder: a socket per machine
    seed = os.environ.get("PYTHONHASHSEED")  # tox sets one
    monkeypatch.setenv("PYTHONHASHSEED", "8" if seed == "7" else "7")
    assert stamp() != first
    if seed is None:
        monkeypatch.delenv("PYTHONHASHSEED")
    else:
        monkeypatch.setenv("PYTHONHASHSEED", seed)
    monkeypatch.setenv("NOT_AN_INTERPRETER_VARIABLE", "1")
    assert stamp() == first  # the check gets the client's environment anyway
    path = socket_path(first)
    assert path is not None and path.parent == tmp_path / "warm"
    assert (path.parent.stat().st_mode & 0o077) == 0


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to connect as another user")
def test_a_connection_from_another_user_is_refused(tmp_path):
    folder = Path(tempfile.mkdtemp(prefix="mw-peer-", dir="/tmp"))
    try:
        folder.chmod(0o777)
        path = folder / "s.sock"
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(str(path))
        path.chmod(0o777)
        listener.listen(1)
        code = (
            "import os, socket, sys; os.setgid(65534); os.setuid(65534); "
            "s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.recv(1)"
        )
        other = subprocess.Popen([sys.executable, "-c", code, str(path)])
        connection, _ = listener.accept()
        with connection:
            assert not server.same_user(connection)
        mine = socket.socket(socket.AF_UNIX)
        mine.connect(str(path))
        connection, _ = listener.accept()
        with connection, mine:
            assert server.same_user(connection)
        other.wait(timeout=10)
        listener.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def preloaded() -> list[list[str]]:
    """The suites every warm checker of this test's cache folder holds for its next copies."""
    return [suite for answer in statuses() for suite in answer.get("preloaded", [])]  # type: ignore[union-attr]


def test_the_next_copy_finds_the_suite_the_last_check_used_already_loaded(warm):
    started_warm_checker()
    assert not preloaded()  # the first check ran in its own process, while the warm checker started
    assert menace("check", str(CORRECT)).returncode == 0
    wait_for(lambda: [str(REPO), "after_game"] in preloaded())
    for answer in (CORRECT, BUGGY):
        cold = menace("check", str(answer), MENACE_WARM="off")
        hot = menace("check", str(answer))
        assert (hot.returncode, hot.stdout, hot.stderr) == (cold.returncode, cold.stdout, cold.stderr)


def test_a_hidden_test_edited_after_the_warm_checker_loaded_it_is_used_at_the_next_check(warm, tmp_path):
    course = copy_course(tmp_path / "course")
    args = ("check", str(CORRECT), "--course", str(course))
    started_warm_checker()
    assert menace(*args).returncode == 0
    wait_for(lambda: [str(course), "after_game"] in preloaded())
    tests = course / "hidden_tests" / "after_game" / "test_after_game.py"
    tests.write_text(
        tests.read_text(encoding="utf-8")
        + "\n\ndef test_added_later(submission):\n"
        + '    """A test added after the warm checker loaded the others."""\n'
        + '    expect(False, "never passes")\n',
        encoding="utf-8",
    )
    edited = menace(*args)
    assert edited.returncode == 1, edited.stdout
    assert "A test added after the warm checker loaded the others" in edited.stdout
    assert edited.stdout == menace(*args, MENACE_WARM="off").stdout


def test_a_message_sent_right_after_another_is_not_lost():
    """A copy that ends at once sends its pid and its exit code together: both must arrive."""
    from menace_course.warm.messages import receive, send

    ours, theirs = socket.socketpair()
    with ours, theirs:
        send(theirs, {"pid": 12})
        send(theirs, {"exit": 2})
        big = {"env": "x" * 200_000}
        send(theirs, big)
        theirs.shutdown(socket.SHUT_WR)
        assert receive(ours) == ({"pid": 12}, [])
        assert receive(ours) == ({"exit": 2}, [])
        assert receive(ours) == (big, [])


def test_with_preloading_off_a_copy_leaves_nothing_to_load(warm, monkeypatch):
    monkeypatch.setenv("MENACE_PRELOAD", "off")
    started_warm_checker()
    assert menace("check", str(CORRECT)).returncode == 0
    time.sleep(0.5)  # (a note is read and loaded within milliseconds of its copy's end)
    assert preloaded() == []
    assert menace("check", str(BUGGY), MENACE_PRELOAD="on").returncode == 1
    wait_for(lambda: [str(REPO), "after_game"] in preloaded())  # the second said what it used
    (answer,) = statuses()
    assert answer["served"] == 2
