"""Over the sandbox's reply cap, while loading or in a call: said as it is, never "stopped Python".

The ready message lists every top-level function and its parameters' names. A file that
makes dozens of functions with 255 long parameters each (``exec`` in a loop) pushes that
list over ``Limits.reply_bytes`` (1 MiB); the worker stops the child. A function that
gives back a huge value does the same to its call's reply. Python itself did not stop
either time, so the report must not say it did.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import check_json, run_menace

GENERATES_HUGE_SIGNATURES = """\
def after_game(beads, square, result):
    return list(beads)


_params = ", ".join("p%03d_" % i + "x" * 95 for i in range(255))
for _i in range(60):
    exec(f"def helper_{_i}({_params}):\\n    return 0\\n")
"""

SANDBOXES = [
    pytest.param("process", id="process"),
    pytest.param("bwrap", id="bwrap", marks=pytest.mark.bwrap),
]


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_file_that_defines_too_much_to_report_is_told_so_with_the_cap_not_that_python_stopped(
    tmp_path: Path, sandbox: str
) -> None:
    path = tmp_path / "after_game.py"
    path.write_text(GENERATES_HUGE_SIGNATURES, encoding="utf-8")
    code, report = check_json(path, "--sandbox", sandbox)
    assert code == 1 and report["status"] == "load_error"
    message = report["load_problem"]["message"]
    assert message.startswith("after_game.py defines too much for the checker to report")
    assert "more than 1 MiB" in message and "stopped Python" not in message
    assert {t["outcome"] for t in report["tests"]} == {"skipped"}
    text = run_menace("check", str(path), "--sandbox", sandbox).stdout
    assert "the list of its functions and their parameters came to more than 1 MiB" in text
    assert "os._exit" not in text and "Traceback" not in text


RETURNS_A_HUGE_LIST = """\
def after_game(beads, square, result):
    return list(range(300_000))
"""
#: Right, but huge for square 8, which only a hidden check uses (the examples use 0, 4 and 5).
HUGE_ONLY_ON_SQUARE_8 = """\
def after_game(beads, square, result):
    if square == 8:
        return list(range(300_000))
    new = list(beads)
    new[square] = max(0, new[square] + {"win": 3, "draw": 1, "loss": -1}[result])
    return new
"""


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_function_that_gives_back_a_value_too_large_is_told_so_with_the_cap_not_that_python_stopped(
    tmp_path: Path, sandbox: str
) -> None:
    path = tmp_path / "after_game.py"
    path.write_text(RETURNS_A_HUGE_LIST, encoding="utf-8")
    code, report = check_json(path, "--sandbox", sandbox)
    assert code == 1 and report["status"] == "checked"
    first = report["tests"][0]
    assert first["outcome"] == "error" and first["message"] == "gave back a value too large to check"
    assert first["detail"]["problem"] == "too_large" and "more than 1 MiB" in first["detail"]["note"]
    assert first["detail"]["error_type"] is None and "exit code" not in first["detail"]["note"]
    text = run_menace("check", str(path), "--sandbox", sandbox).stdout
    assert "✗ after_game gave back a value too large to check" in text
    assert "came to more than 1 MiB, the most one reply from the sandbox may hold" in text
    assert "stopped Python itself" not in text and "os._exit" not in text and "Traceback" not in text
    path.write_text(HUGE_ONLY_ON_SQUARE_8, encoding="utf-8")
    code, report = check_json(path, "--sandbox", sandbox)
    hidden = [t["detail"] for t in report["tests"] if not t["is_visible"] and t["outcome"] == "error"]
    assert code == 1 and hidden and all(d == {**d, "problem": "too_large", "note": None} for d in hidden)
    assert all(d["error_type"] is None for d in hidden)
