"""Two submissions checked side by side in the process sandbox cannot reach each other.

Measured before this was fixed: as root, with ``menace grade --sandbox process
--i-accept-no-sandbox --jobs 2``, every child ran as uid 65534, so one submission could
list the host's processes (``chdir("/proc")`` got past the in-child guard), find its
neighbour's sandbox by its command line, and kill it: the neighbour's correct answer then
scored 9/15. Now, as root, each child has a uid of its own and its own pid namespace
with a fresh ``/proc``: the neighbour is neither visible nor signalable.

The attack is deterministic, not a race: the victim is loaded and waiting for calls
before the attacker starts. The attacker only kills a process that it has identified as
this test's victim (by a print limit no other sandbox uses), so that a run before the fix
cannot disturb other sandboxes on the machine.
"""

from __future__ import annotations

import os

import pytest

from menace_course.limits import Limits
from menace_course.sandbox.child import Child

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0,
    reason="as an ordinary user the process sandbox is documented as no boundary (README)",
)

#: The victim's print limit: it is in the victim's command line, and in no other sandbox's.
MARK = 4093
#: How it appears there: the settings are marshalled, then written in hex.
MARK_IN_COMMAND = (b"print_limit" + b"i" + MARK.to_bytes(4, "little")).hex()
VICTIM = Limits(call_seconds=5, import_seconds=5, budget_seconds=20, print_chars=MARK)
ATTACKER = Limits(call_seconds=5, import_seconds=5, budget_seconds=20)

VICTIM_SOURCE = """
def answer():
    return 42
"""

# Everything relative to /proc, after chdir: the in-child guard only looks at absolute paths.
ATTACKER_SOURCE = f"""
import os, signal

seen, signalled, killed, read = [], [], [], []
os.chdir("/proc")
for entry in os.listdir("."):
    if not entry.isdigit() or int(entry) in (os.getpid(), os.getppid()):
        continue  # itself, and the process that runs it (tests/core/test_sandbox_child.py)
    try:
        with open(entry + "/cmdline", "rb") as file:
            command = file.read().split(b"\\0")
    except OSError:
        continue
    if not any(part.endswith(b"harness.pyc") for part in command):
        continue
    seen.append(int(entry))
    try:
        with open(entry + "/status") as file:
            read.append(file.read(200))
    except OSError:
        pass
    try:
        os.kill(int(entry), 0)
        signalled.append(int(entry))
    except OSError:
        continue
    if b"{MARK_IN_COMMAND}" in b"".join(command):
        try:
            os.kill(int(entry), signal.SIGKILL)
            killed.append(int(entry))
        except OSError:
            pass

def report():
    return {{"seen": len(seen), "signalled": len(signalled), "killed": len(killed), "read": len(read)}}
"""


def test_a_submission_cannot_see_signal_or_kill_the_sandbox_next_to_it():
    with (
        Child(VICTIM_SOURCE, "process", VICTIM) as victim,
        Child(ATTACKER_SOURCE, "process", ATTACKER) as attacker,
    ):
        assert victim.load().status == "ready"
        assert attacker.load().status == "ready"
        found = attacker.call("report", [])
        assert found.status == "returned", found
        answer = victim.call("answer", [])
        assert answer.status == "returned" and answer.result == 42, answer
        assert victim.starts == 1  # the victim was not killed and restarted
        assert found.result == {"seen": 0, "signalled": 0, "killed": 0, "read": 0}


def test_two_children_running_at_once_have_different_unprivileged_uids():
    source = "import os\ndef me():\n    return os.getuid()\n"
    with Child(source, "process", ATTACKER) as first, Child(source, "process", ATTACKER) as second:
        assert first.load().status == "ready" and second.load().status == "ready"
        uids = {first.call("me", []).result, second.call("me", []).result}
    assert len(uids) == 2
    assert all(isinstance(uid, int) and uid not in (0, 65534) for uid in uids), uids


def test_a_uid_is_used_again_only_after_its_child_has_gone():
    source = "import os\ndef me():\n    return os.getuid()\n"
    with Child(source, "process", ATTACKER) as first:
        assert first.load().status == "ready"
        held = first.call("me", []).result
        with Child(source, "process", ATTACKER) as second:
            assert second.load().status == "ready"
            assert second.call("me", []).result != held


def test_without_a_uid_of_its_own_the_child_runs_as_nobody_and_the_report_says_so(monkeypatch):
    from menace_course.sandbox import launch

    monkeypatch.setattr(launch, "_lease_folder", lambda: None)  # e.g. /run and /tmp both refused
    source = "import os\ndef me():\n    return os.getuid()\n"
    with Child(source, "process", ATTACKER) as worker:
        assert worker.load().status == "ready"
        assert worker.call("me", []).result == 65534
    assert worker.confinement is not None and "a uid of its own" in worker.confinement.missing


def test_a_uid_lease_is_refused_in_a_folder_another_user_could_have_made(monkeypatch, tmp_path):
    from menace_course.sandbox import launch

    planted = tmp_path / "uids"
    planted.mkdir(mode=0o777)
    planted.chmod(0o777)  # as if another user made it first, for everyone to write
    monkeypatch.setattr(launch, "LEASE_FOLDER", planted)
    monkeypatch.setattr(launch.tempfile, "gettempdir", lambda: str(tmp_path / "nowhere-writable" / "x"))
    (tmp_path / "nowhere-writable").mkdir()
    (tmp_path / "nowhere-writable" / "x").write_text("a file, not a folder")
    assert launch.lease_uid() is None
