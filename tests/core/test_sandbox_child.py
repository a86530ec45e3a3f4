"""The sandboxed child answers calls with plain facts, within its limits, and can be killed."""

import os

import pytest

from menace_course.limits import Limits
from menace_course.sandbox.child import Child
from menace_course.sandbox.launch import bwrap_works
from tests.support import SELF_ENDINGS

KINDS = [pytest.param("process", id="process"), pytest.param("bwrap", id="bwrap", marks=pytest.mark.bwrap)]
FAST = Limits(call_seconds=0.5, import_seconds=2, budget_seconds=5)

SOURCE = """
import os, sys
print("loading")
def double(xs):
    print("doubling", xs)
    return [2 * x for x in xs]
def grow(xs):
    xs.append(1)
    return xs
def outer(n):
    return inner(n)
def inner(n):
    return [1][n]
def spin():
    while True:
        pass
def chatty():
    for i in range(20000):
        print("spam", i)
    return 1
def leave():
    os._exit(0)
def me():
    return os.getuid()
def pair():
    return (1, 2)
"""


def started(kind, source=SOURCE, limits=FAST):
    worker = Child(source, kind, limits)
    assert worker.load().status == "ready"
    return worker


@pytest.mark.parametrize("kind", KINDS)
def test_a_call_returns_the_value_the_arguments_after_and_what_was_printed(kind):
    with started(kind) as worker:
        outcome = worker.call("double", [[1, 2]])
        assert outcome.status == "returned" and outcome.result == [2, 4]
        assert outcome.printed.text == "doubling [1, 2]\n"
        changed = worker.call("grow", [[5]])
        assert changed.args_after == ([5, 1],)
        assert worker.call("pair", []).result == (1, 2)


@pytest.mark.parametrize("kind", KINDS)
def test_an_exception_reports_only_the_students_frames(kind):
    with started(kind) as worker:
        outcome = worker.call("outer", [3])
    assert outcome.status == "raised" and outcome.exception.type_name == "IndexError"
    assert [f.function for f in outcome.exception.frames] == ["outer", "inner"]


@pytest.mark.parametrize("kind", KINDS)
def test_an_endless_loop_times_out_once_then_the_function_is_not_called_again(kind):
    with started(kind) as worker:
        first = worker.call("spin", [])
        again = worker.call("spin", [])
        still_fine = worker.call("double", [[3]])
    assert first.status == "timeout" and again.status == "dead"
    assert still_fine.result == [6] and worker.starts == 2


@pytest.mark.parametrize("kind", KINDS)
def test_printing_is_capped(kind):
    with started(kind) as worker:
        outcome = worker.call("chatty", [])
    assert outcome.result == 1 and len(outcome.printed.text) == FAST.print_chars
    assert outcome.printed.dropped > 100000 - FAST.print_chars


@pytest.mark.parametrize("kind", KINDS)
def test_a_call_that_stops_python_is_a_crash_and_the_child_restarts(kind):
    with started(kind) as worker:
        assert worker.call("leave", []).status == "crashed"
        assert worker.call("double", [[1]]).result == [2]


#: Every way a child is started: (kind, with a pid namespace where the kind makes one).
SANDBOXES = [
    pytest.param("process", True, id="process"),
    pytest.param("process", False, id="process-no-pid-namespace"),
    pytest.param("bwrap", True, id="bwrap", marks=pytest.mark.bwrap),
]


@pytest.mark.parametrize("ending", SELF_ENDINGS)
@pytest.mark.parametrize(("kind", "namespace"), SANDBOXES)
def test_a_submission_that_ends_itself_ends_the_same_way_in_every_sandbox(
    kind, namespace, ending, monkeypatch
):
    # In process mode as root the child has its own pid namespace, whose first process
    # ignores the signals it sends itself: the harness must not be that process. Without
    # one (an ordinary user, or no unshare) it is a plain process, which Popen says
    # ended with -N for a signal N: reported as 128 + N all the same.
    if not namespace:
        monkeypatch.setattr("menace_course.sandbox.launch.pid_namespace_prefix", lambda: ())
    source, exit_code = SELF_ENDINGS[ending]
    with Child(source + "def f():\n    return 1\n", kind, FAST) as worker:
        loaded = worker.load()
        assert (loaded.status, loaded.exit_code) == ("crashed", exit_code)


def test_in_process_mode_as_root_the_submission_cannot_signal_what_runs_it():
    if os.geteuid() != 0:
        pytest.skip("only root gets a pid namespace in process mode")
    source = (
        "import os, signal\n"
        "def kill_first():\n"
        "    try:\n"
        "        os.kill(1, signal.SIGKILL)\n"
        "    except OSError as error:\n"
        "        return type(error).__name__\n"
        "    return 'sent'\n"
        "def where():\n"
        "    return os.getpid()\n"
    )
    with started("process", source) as worker:
        assert worker.call("where", []).result == 2  # below the namespace's first process
        assert worker.call("kill_first", []).result == "PermissionError"
        assert worker.call("where", []).result == 2  # the same child, still answering
        # The starvation clock reads the process that runs the student's code, not the
        # first one, which only waits (a clock on it would never see the machine starve).
        clock = worker._run_delay()
        assert clock is not None
        status = open(f"/proc/{clock.pid}/status").read().splitlines()
        (namespace_pids,) = [line for line in status if line.startswith("NSpid:")]
        assert namespace_pids.split()[-1] == "2"


@pytest.mark.parametrize("kind", KINDS)
def test_input_at_load_time_gets_end_of_file_not_the_graders_pipe(kind):
    worker = Child("name = input('name? ')\n", kind, FAST)
    with worker:
        load = worker.load()
    assert load.status == "raised" and load.exception.type_name == "EOFError"


@pytest.mark.parametrize("kind", KINDS)
def test_a_loop_at_load_time_times_out(kind):
    with Child("while True:\n    pass\n", kind, Limits(import_seconds=0.5)) as worker:
        assert worker.load().status == "timeout"


@pytest.mark.parametrize("kind", KINDS)
def test_the_time_budget_for_a_file_ends_its_calls_and_counts_its_loading_too(kind):
    limits = Limits(call_seconds=0.3, budget_seconds=1.0)
    source = "import time\ndef nap(s):\n    time.sleep(s)\n    return s\n"
    with started(kind, source, limits) as worker:
        loading = worker.spent
        outcomes = [worker.call("nap", [0.2]).status for _ in range(8)]
    assert loading > 0
    assert outcomes[:2] == ["returned", "returned"] and outcomes[-1] == "budget"
    assert outcomes.count("returned") <= (1.0 - loading) / 0.2 + 1


@pytest.mark.bwrap
def test_under_bubblewrap_the_child_is_nobody_offline_and_blind():
    source = """
import os, socket
def probe():
    found = []
    for path in ("/work", "/home", "/etc/passwd", "/root/.ssh"):
        found.append(os.path.exists(path))
    try:
        socket.create_connection(("127.0.0.1", 22), timeout=1)
        found.append("net")
    except OSError:
        pass
    try:
        os.fork()
        found.append("fork")
    except OSError:
        pass
    try:
        import hypothesis
        found.append("hypothesis")
    except ImportError:
        pass
    return (os.getuid(), found)
"""
    assert bwrap_works()
    with started("bwrap", source) as worker:
        uid, found = worker.call("probe", []).result
    assert uid != 0
    assert found == [False, False, False, False]


@pytest.mark.parametrize("kind", KINDS)
def test_unseeded_random_gives_the_same_answers_every_run(kind):
    source = "import random\ndef roll():\n    return [random.randint(1, 6) for _ in range(5)]\n"
    rolls = []
    for _ in range(2):
        with started(kind, source) as worker:
            rolls.append(worker.call("roll", []).result)
    assert rolls[0] == rolls[1]


# -- a child that fights the protocol ---------------------------------------------------------

STALLING_CHILD = r"""
import fcntl, json, marshal, os, sys, time
requests, replies = int(sys.argv[-3]), int(sys.argv[-2])
line = b""
while not line.endswith(b"\n"):
    line += os.read(requests, 1)
nonce = marshal.loads(bytes.fromhex(line.decode()))["nonce"]
fcntl.fcntl(requests, 1031, 4096)  # F_SETPIPE_SZ: one page
functions = {"f": {"params": ["x"], "min": 1, "max": 1, "is_function": True}}
os.write(replies, json.dumps({"nonce": nonce, "ready": True, "functions": functions}).encode() + b"\n")
time.sleep(120)  # never reads another request
"""


def stalling_plan(monkeypatch, tmp_path):
    """Make the worker start STALLING_CHILD instead of the harness (the grader's side is real)."""
    from menace_course.sandbox import child as worker_module
    from menace_course.sandbox.launch import LaunchPlan

    script = tmp_path / "stall.py"
    script.write_text(STALLING_CHILD)

    def plan(kind, workdir, limits, fds):
        import sys

        argv = [sys.executable, str(script), str(fds[0]), str(fds[1]), "settings"]
        return LaunchPlan(argv, {}, "process", workdir, fds)

    monkeypatch.setattr(worker_module, "plan_launch", plan)


def test_a_child_that_stops_reading_its_requests_cannot_block_the_grader(monkeypatch, tmp_path):
    stalling_plan(monkeypatch, tmp_path)
    limits = Limits(call_seconds=0.5, budget_seconds=5)
    with Child("", "process", limits) as worker:
        assert worker.load().status == "ready"
        outcome = worker.call("f", [list(range(200_000))])  # far more than one page
    assert outcome.status == "timeout"
    assert outcome.seconds < 0.5 * 4 + 1  # bounded by the call's limit, not by the child


def test_replies_without_the_nonce_are_forgeries_and_never_answers(tmp_path):
    source = """
import json, os
def f(x):
    for fd in range(3, 64):
        for guess in range(1, 4):
            line = json.dumps({"id": guess, "ok": True, "result": 42, "args_after": [x]})
            try:
                os.write(fd, line.encode() + b"\\n")
            except OSError:
                pass
    return 1
"""
    with Child(source, "process", FAST) as worker:
        assert worker.load().status == "ready"
        outcome = worker.call("f", [0])
    assert outcome.status == "crashed" and outcome.result is None
    assert worker.forged == 1 and worker.attempts[0].event == "forged message"


@pytest.mark.parametrize("kind", KINDS)
def test_a_restart_that_does_not_load_again_is_charged_counted_and_ends_the_calls(kind, tmp_path):
    # Loads at once the first time, then hangs on every reload: it tells them apart by
    # the age of its file (the grader wrote it just before the first load). The first call
    # sleeps 4 s of wall clock before it crashes, so a reload comes at least 4 s after the
    # file was written, and the first load may take up to 3.5 s on a busy machine.
    source = """
import os, time
if time.time() - os.stat(__file__).st_mtime > 3.5:
    time.sleep(60)
def f():
    time.sleep(4)
    os._exit(3)
"""
    limits = Limits(call_seconds=6.0, import_seconds=1.0, budget_seconds=20)
    with Child(source, kind, limits) as worker:
        assert worker.load().status == "ready"
        first, second, third = (worker.call("f", []) for _ in range(3))
    assert (first.status, second.status, third.status) == ("crashed", "timeout", "dead")
    assert second.seconds >= 1.0 and worker.spent >= 1.0 + first.seconds


# -- the harness: a detector, never a refusal of what the standard library does (issue 20) ---

INTROSPECTION = """
import builtins, sys, traceback
def frames():
    found = []
    try:
        sys._getframe(1)
        found.append("getframe")
    except ValueError:
        pass
    try:
        1 / 0
    except ZeroDivisionError as error:
        try:
            error.__traceback__.tb_frame
            found.append("tb_frame")
        except AttributeError:
            pass
    def gen():
        yield 1
    try:
        gen().gi_frame
        found.append("gi_frame")
    except AttributeError:
        pass
    return found
def harness_in_reach():
    import __main__
    names = [c.__name__ for c in object.__subclasses__()]
    return [sorted(n for n in vars(__main__) if not n.startswith("__")),
            sorted(m for m in sys.modules if m in ("wire", "harness", "ctypes")),
            [n for n in names if n in ("Opaque", "WireError")],
            harness_namespaces()]
def harness_namespaces():
    # Every function student code can reach (the classes of sys.stdout and sys.stderr,
    # every subclass of object, what gc and _signal hold): do any of their globals or
    # builtins belong to the harness or its codec?
    functions = [type(sys.stdout).write, type(sys.stderr).write]
    for name in ("gc", "_signal"):
        module = sys.modules.get(name)
        functions += [getattr(module, n) for n in dir(module)] if module else []
    seen, classes = set(), [object]
    while classes:
        cls = classes.pop()
        if id(cls) not in seen:
            seen.add(id(cls))
            classes.extend(type.__subclasses__(cls))
            functions.extend(vars(cls).values())
    found = set()
    for function in functions:
        if type(function).__name__ != "function":
            continue
        space = function.__globals__
        own = space.get("__builtins__")
        if {"make_server", "make_guard", "confine", "_count_digits", "MAX_INT_DIGITS"} & set(space):
            found.add("globals of " + function.__qualname__)
        if type(own) is dict and own is not vars(builtins) and "enumerate" in own:
            found.add("builtins of " + function.__qualname__)
    return sorted(found)
def patch_builtins_then_change(beads):
    builtins.len = lambda x: 0
    builtins.isinstance = lambda a, b: True
    builtins.list = tuple
    beads.append(99)
    return None
class Undo:
    def __init__(self, beads):
        self.beads, self.me = beads, self  # a cycle: only the garbage collector frees it
    def __del__(self):
        self.beads.pop()  # put the argument back as it was, too late
def undo_in_a_finalizer(beads):
    beads.append(99)
    Undo(beads)
    return None
def hooks():
    worked = []
    sys.settrace(lambda *a: None)  # what pdb does behind breakpoint()
    sys.settrace(None)
    worked.append("settrace")
    heard = []
    sys.addaudithook(lambda event, args: heard.append(event))
    open("/dev/null").close()
    if heard:
        worked.append("addaudithook")
    import ctypes  # what Python 3.13's platform module does
    worked.append("ctypes")
    return worked
def every_standard_module():
    # Every module of the standard library this Python has, imported the way a student's
    # file would, then the calls that look at frames (namedtuple, Enum, typing, dataclasses).
    import collections, dataclasses, enum, typing
    skipped = {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "__main__",
               "_tkinter", "pydoc", "_pyrepl", "ensurepip", "venv", "webbrowser"}
    failed = []
    for name in sorted(sys.stdlib_module_names):
        if name in skipped or name.startswith("_test") or name == "test":
            continue
        try:
            __import__(name)
        except ImportError:
            pass  # not built on this machine (e.g. _tkinter, or Windows' modules)
        except Exception as error:
            failed.append(f"{name}: {type(error).__name__}")
    Point = collections.namedtuple("Point", "x y")
    Colour = enum.Enum("Colour", "RED GREEN")
    T = typing.TypeVar("T")
    Box = dataclasses.make_dataclass("Box", [("beads", list)])
    typing.NamedTuple("Pair", [("a", int)])
    return failed, [Point(1, 2).x, Colour.RED.value, str(T), Box([1]).beads]
"""


@pytest.mark.parametrize("kind", KINDS)
def test_frames_are_not_refused_nor_recorded_since_the_standard_library_walks_them_itself(kind):
    # sys._getframe (namedtuple, enum, typing), sys._getframemodulename (3.12 on) and
    # tb_frame (traceback) are the standard library's own: refusing them broke correct code.
    with started(kind, INTROSPECTION) as worker:
        outcome = worker.call("frames", [])
    assert outcome.result == ["getframe", "tb_frame", "gi_frame"]
    assert outcome.attempts == ()


@pytest.mark.parametrize("kind", KINDS)
def test_every_standard_library_module_imports_and_is_never_a_finding(kind):
    limits = Limits(call_seconds=60, import_seconds=10, budget_seconds=80)
    with started(kind, INTROSPECTION, limits) as worker:
        outcome = worker.call("every_standard_module", [])
    assert outcome.status == "returned", outcome
    failed, used = outcome.result
    assert failed == [] and used == [1, 1, "~T", [1]]
    assert outcome.attempts == ()


@pytest.mark.parametrize("kind", KINDS)
def test_nothing_of_the_harness_is_in_reach_of_student_code(kind):
    with started(kind, INTROSPECTION) as worker:
        main_names, modules, classes, namespaces = worker.call("harness_in_reach", []).result
    assert (main_names, modules, classes, namespaces) == ([], [], [], [])


@pytest.mark.parametrize("kind", KINDS)
def test_patched_builtins_do_not_change_what_the_harness_reports(kind):
    with started(kind, INTROSPECTION) as worker:
        outcome = worker.call("patch_builtins_then_change", [[4, 4]])
    assert outcome.status == "returned" and outcome.args_after == ([4, 4, 99],)


@pytest.mark.parametrize("kind", KINDS)
def test_a_finalizer_cannot_put_the_arguments_back_before_they_are_copied(kind):
    with started(kind, INTROSPECTION) as worker:
        outcome = worker.call("undo_in_a_finalizer", [[4, 4]])
    assert outcome.args_after == ([4, 4, 99],)


@pytest.mark.parametrize("kind", KINDS)
def test_nothing_is_refused_and_only_what_no_standard_library_does_is_recorded(kind):
    # Tracing and ctypes are the standard library's own (pdb, platform on 3.13): allowed,
    # not recorded. A second audit hook is nobody's but tampering code's: recorded.
    with started(kind, INTROSPECTION) as worker:
        outcome = worker.call("hooks", [])
    assert outcome.result == ["settrace", "addaudithook", "ctypes"]
    assert [(a.event, a.detail) for a in outcome.attempts] == [("sys.addaudithook", "")]


@pytest.mark.parametrize("kind", KINDS)
def test_signal_handlers_work_as_asyncio_run_needs_them(kind):
    source = """
import signal
signal.signal(signal.SIGTERM, signal.SIG_IGN)
def handler():
    signal.signal(signal.SIGINT, lambda number, frame: None)  # what asyncio.Runner does
    return signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
"""
    with started(kind, source) as worker:
        outcome = worker.call("handler", [])
    assert outcome.result is True and outcome.attempts == ()


AGAIN = """
def appends(beads):
    beads.append(len(beads))
    return list(beads)
def copies(beads):
    return beads + [len(beads)]
"""


@pytest.mark.parametrize("kind", KINDS)
def test_a_call_made_again_gets_the_very_objects_the_last_call_left(kind):
    with started(kind, AGAIN) as worker:
        first = worker.call("appends", [[7]])
        again = worker.call_again()
        twice = worker.call_again()
        pure = worker.call("copies", [[7]])
        pure_again = worker.call_again()
    assert (first.result, again.result, twice.result) == ([7, 1], [7, 1, 2], [7, 1, 2, 3])
    assert again.args_after == ([7, 1, 2],)
    assert pure.result == pure_again.result == [7, 1]


@pytest.mark.parametrize("kind", KINDS)
def test_nothing_can_be_called_again_after_a_call_that_did_not_return(kind):
    with started(kind, AGAIN) as worker:
        assert worker.call_again().status == "dead"  # no call yet
        assert worker.call("appends", [None]).status == "raised"
        assert worker.call_again().status == "dead"


# -- the sandbox's own failures (issue 8 item 11) and what it applied --------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_the_harness_reports_what_it_applied_and_runs_student_code_unprivileged(kind):
    import os

    with started(kind, "import os\ndef me():\n    return os.getuid()\n") as worker:
        uid = worker.call("me", []).result
    confinement = worker.confinement
    assert confinement is not None and confinement.uid == uid
    assert {"memory", "cpu", "processes", "seccomp"} <= set(confinement.applied)
    if os.geteuid() == 0 and kind == "bwrap":
        assert uid == 65534  # never root, in either sandbox
    if os.geteuid() == 0 and kind == "process":
        # never root, and a uid no other child has (tests/check/test_process_sandbox_neighbours.py)
        assert uid >= 1_900_000_000
        assert {"a uid of its own", "pid namespace"} <= set(confinement.applied)
    if kind == "bwrap":
        assert {"namespaces", "no network", "ipc namespace"} <= set(confinement.applied)


SCRATCH = """
import os
def hold(tag):
    held = {}
    for folder in ("/tmp", "/dev/shm"):
        held[folder] = 0
        for i in range(40):  # 40 MB asked for, in 1 MB files
            try:
                with open(f"{folder}/{tag}-{i}", "wb") as file:
                    file.write(b"x" * (1 << 20))
            except OSError:
                break
            held[folder] += 1
    return held
"""


@pytest.mark.parametrize("kind", KINDS)
def test_files_in_tmp_and_dev_shm_are_capped_and_gone_after_the_check(kind, tmp_path):
    # /dev/shm is memory that RLIMIT_AS does not count, and files in the host's /tmp would
    # outlive the check for the next student to read. As root (and always under bubblewrap)
    # each child gets its own small scratch folders, gone with it.
    import os
    from pathlib import Path

    if kind == "process" and os.geteuid() != 0:
        pytest.skip("without root the process sandbox shares the user's folders (README)")
    tag = f"menace-held-{os.getpid()}-{kind}"
    limits = Limits(call_seconds=5, import_seconds=5, budget_seconds=10)
    with started(kind, SCRATCH, limits) as worker:
        outcome = worker.call("hold", [tag])
    assert outcome.status == "returned", outcome
    assert all(megabytes < 20 for megabytes in outcome.result.values()), outcome.result
    left = [p for folder in ("/tmp", "/dev/shm") for p in Path(folder).glob(f"{tag}-*")]
    assert left == []
    if kind == "process":
        assert "private scratch folders" in worker.confinement.applied


@pytest.mark.bwrap
def test_a_sandbox_that_cannot_drop_privileges_is_the_graders_failure(monkeypatch):
    # The bwrap probe passes, but dropping to uid 65534 fails (here: no CAP_SETUID). A
    # sandbox started from scratch; tests/core/test_zygote.py does the same to a zygote's box.
    import os

    from menace_course.sandbox import launch, zygote
    from menace_course.sandbox.outcomes import SandboxFailure

    if os.geteuid() != 0:
        pytest.skip("only a root-launched sandbox drops privileges itself")
    monkeypatch.setenv(zygote.SWITCH, "off")
    real = launch.bwrap_plan

    def without_setuid(*args, **kwargs):
        plan = real(*args, **kwargs)
        argv = list(plan.argv)
        index = argv.index("CAP_SETUID")
        del argv[index - 1 : index + 1]
        return launch.LaunchPlan(
            argv, plan.env, plan.kind, plan.workdir, plan.pass_fds, plan.close_after_start
        )

    monkeypatch.setattr(launch, "bwrap_plan", without_setuid)
    with (
        Child("def f():\n    return 1\n", "bwrap", FAST) as worker,
        pytest.raises(SandboxFailure) as failure,
    ):
        worker.load()
    assert "PermissionError" in str(failure.value) or "Operation not permitted" in str(failure.value)


@pytest.mark.parametrize("kind", KINDS)
def test_a_limit_the_sandbox_cannot_apply_is_named_in_the_report_not_skipped(kind):
    from pathlib import Path

    from menace_course.catalog import load_challenge
    from menace_course.checking.pipeline import Target, open_submission
    from menace_course.course import Course

    challenge = load_challenge(Course(Path(__file__).resolve().parents[2]), "after_game")
    impossible = Limits(open_files=2**40)  # more open files than any kernel allows
    answer = ("after_game.py", b"def after_game(beads, square, result):\n    return beads\n")
    with open_submission(answer, Target.of(challenge), kind, limits=impossible) as opened:
        notes = opened.unconfined()
    assert notes and "open_files" in notes[0]


def test_a_python_prefix_that_only_starts_with_usr_is_still_made_visible(monkeypatch):
    # /usr is bound as a whole; /usr2 or /usrlocal is not under it and needs its own bind.
    import sys
    from pathlib import Path

    from menace_course.sandbox import launch

    monkeypatch.setattr(sys, "base_prefix", "/usrlocal/python")
    monkeypatch.setattr(launch, "child_python", lambda: Path("/usrlocal/python/bin/python3"))
    assert launch._interpreter_roots() == [Path("/usrlocal/python")]
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    monkeypatch.setattr(launch, "child_python", lambda: Path("/usr/bin/python3"))
    assert launch._interpreter_roots() == []


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
def test_a_memory_bomb_is_named_the_same_while_every_core_is_busy(kind):
    # Issue 8, Also: under load the memory bomb was once a timeout. Time limits count the
    # child's own time, so a busy machine changes how long a verdict takes, never which.
    import os
    import subprocess
    import sys

    # every page written (not just reserved): reaching the cap takes real CPU time
    source = "def bomb():\n    hog = []\n    while True:\n        hog.append(b'x' * (50 * 1024 * 1024))\n"
    spin = "import time\nend = time.monotonic() + 60\nwhile time.monotonic() < end:\n    pass\n"
    # Eight busy loops a core, each in a session of its own as other users' work would be
    # (the kernel shares a CPU between sessions first): the child gets a ninth of a CPU.
    busy = [
        subprocess.Popen([sys.executable, "-c", spin], start_new_session=True)
        for _ in range(8 * (os.cpu_count() or 1))
    ]
    try:
        with started(kind, source, Limits(call_seconds=2, import_seconds=5, budget_seconds=20)) as worker:
            outcomes = [worker.call("bomb", []) for _ in range(2)]
    finally:
        for process in busy:
            process.kill()
            process.wait()
    verdicts = [(o.status, o.exception and o.exception.type_name) for o in outcomes]
    assert verdicts == [("raised", "MemoryError")] * 2


@pytest.mark.bwrap
def test_a_probe_started_early_chooses_bubblewrap_where_it_runs():
    from menace_course.sandbox.launch import BwrapProbe, choose_kind

    assert choose_kind("auto", BwrapProbe()) == "bwrap"
    assert choose_kind("bwrap", BwrapProbe()) == "bwrap"


def test_a_remembered_answer_is_reused_for_the_same_bwrap_only(monkeypatch, tmp_path):
    """The warm checker asks once a minute, not once a check; another bwrap on PATH is asked anew."""
    from menace_course.sandbox import launch

    monkeypatch.setattr(launch, "_known", None)
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    launch.remember_probe()
    assert launch._known == (str(fake), False)
    again = launch.BwrapProbe()
    assert again._process is None and again.works() is False  # nothing was started to ask
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "bwrap").write_text("#!/bin/sh\nexit 0\n")
    (other / "bwrap").chmod(0o755)
    monkeypatch.setenv("PATH", str(other))
    asked = launch.BwrapProbe()
    assert asked._process is not None and asked.works() is True


def test_without_bubblewrap_the_probe_says_so_and_bwrap_is_refused_with_how_to_fix_it(monkeypatch):
    from menace_course.errors import SandboxUnavailable
    from menace_course.sandbox.launch import BwrapProbe, choose_kind

    monkeypatch.setenv("PATH", "/nonexistent")
    probe = BwrapProbe()
    assert probe.works() is False
    with pytest.raises(SandboxUnavailable, match="apt-get install bubblewrap"):
        choose_kind("bwrap", probe)
