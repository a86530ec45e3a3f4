"""A file whose list of functions is over the sandbox's reply cap: a load problem, said as it is.

The ready message lists every top-level function and its parameters' names. A file that
makes dozens of functions with 255 long parameters each (``exec`` in a loop) pushes that
list over ``Limits.reply_bytes`` (1 MiB); the worker stops the child. Python itself did
not stop, so the report must not say it did.
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
