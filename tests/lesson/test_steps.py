"""``menace step`` and ``menace start``: the page's outputs, line for line."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from lesson_support import REPO, Ran, golden

from menace_course.commands import lesson
from menace_course.lesson.experiments.page_steps import STEPS

STEP_NUMBERS = [1, 2, 3, 4]


@pytest.mark.parametrize("number", STEP_NUMBERS)
def test_menace_step_prints_the_pages_output(menace: Callable[..., Ran], number: int) -> None:
    ran = menace("step", str(number))
    assert ran.code == 0
    assert ran.out.splitlines() == golden(number)


@pytest.mark.parametrize("number", STEP_NUMBERS)
def test_the_engine_gives_the_pages_output_too(number: int) -> None:
    assert list(STEPS[number]().lines) == golden(number)


def test_without_step_programs_menace_step_uses_the_engine(
    menace: Callable[..., Ran], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(lesson, "step_program", lambda number, course_dir=None: None)
    ran = menace("step", "3", "--picture", str(tmp_path / "games.png"))
    assert ran.out.splitlines() == golden(3)
    assert (tmp_path / "games.png").read_bytes().startswith(b"\x89PNG")


def test_the_step_programs_are_found_in_the_course() -> None:
    assert lesson.step_program(3) == REPO / "reference" / "steps" / "step3.py"


@pytest.mark.parametrize(("number", "rows", "columns"), [(3, 10, 30), (4, 20, 50)])
def test_picture_writes_the_games_as_squares(
    menace: Callable[..., Ran], tmp_path: Path, number: int, rows: int, columns: int
) -> None:
    picture = tmp_path / "games.svg"
    ran = menace("step", str(number), "--picture", str(picture))
    assert ran.out.splitlines() == golden(number)
    assert str(picture) in ran.err
    assert picture.read_text(encoding="utf-8").count("<rect ") == rows * columns + 1


def _run_alone(folder: Path, program: str) -> list[str]:
    """Run a program with no site-packages, so it can only use the files beside it."""
    done = subprocess.run(
        [sys.executable, "-S", "-E", "-s", program],
        cwd=folder,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=True,
    )
    return done.stdout.splitlines()


def test_start_step3_writes_a_program_that_prints_the_pages_numbers(
    menace: Callable[..., Ran], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    ran = menace("start", "step3")
    assert ran.code == 0 and "python3 step3.py" in ran.out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["noughts.py", "pixels.py", "step3.py"]
    assert "from noughts import" in (tmp_path / "step3.py").read_text(encoding="utf-8")
    lines = _run_alone(tmp_path, "step3.py")
    assert lines[:8] == golden(3)
    assert lines[8:] and all(set(line) <= set("WDL") for line in lines[8:])  # the picture


@pytest.mark.parametrize("number", [1, 2, 4])
def test_start_writes_every_step(
    menace: Callable[..., Ran], tmp_path: Path, monkeypatch: pytest.MonkeyPatch, number: int
) -> None:
    monkeypatch.chdir(tmp_path)
    assert menace("start", f"step{number}").code == 0
    assert _run_alone(tmp_path, f"step{number}.py")[: len(golden(number))] == golden(number)


def test_start_never_replaces_a_changed_file_without_force(
    menace: Callable[..., Ran], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    menace("start", "step2")
    (tmp_path / "step2.py").write_text("# my own work\n", encoding="utf-8")
    refused = menace("start", "step2")
    assert refused.code == 2 and "step2.py" in refused.err and "--force" in refused.err
    assert (tmp_path / "step2.py").read_text(encoding="utf-8") == "# my own work\n"
    assert menace("start", "step2", "--force").code == 0
    assert "# my own work" not in (tmp_path / "step2.py").read_text(encoding="utf-8")


def test_start_leaves_identical_helpers_alone(
    menace: Callable[..., Ran], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    menace("start", "step3")
    ran = menace("start", "step4")  # needs noughts.py and pixels.py, already here
    assert ran.code == 0 and "Wrote step4.py." in ran.out


def _course(root: Path) -> Path:
    (root / "challenges" / "back_in_the_box").mkdir(parents=True)
    (root / "challenges" / "back_in_the_box" / "starter.py").write_text("def f():\n    pass\n")
    (root / "feedback_templates").mkdir()
    return root


def test_start_writes_a_challenges_starter_under_its_name(
    menace: Callable[..., Ran], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    course = _course(tmp_path / "course")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    ran = menace("start", "back_in_the_box", "--course", str(course))
    assert ran.code == 0
    assert (work / "back_in_the_box.py").read_text() == "def f():\n    pass\n"


def test_start_suggests_a_close_challenge_name(
    menace: Callable[..., Ran], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    course = _course(tmp_path / "course")
    monkeypatch.chdir(tmp_path)
    ran = menace("start", "back_in_the_bx", "--course", str(course))
    assert ran.code == 2
    assert "did you mean 'back_in_the_box'" in ran.err
    assert not list(tmp_path.glob("*.py"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["step", "5"], "there is no Step 5"),
        (["step", "three"], "'three' is not a valid integer"),
        (["step", "2", "--picture", "x.png"], "Step 2 draws no picture"),
        (["step", "3", "--picture", "x.jpg"], "must end in .png or .svg"),
        (["step", "3", "--course", "/nowhere"], "not a course folder"),
    ],
)
def test_bad_step_arguments_get_a_reason_and_exit_2(
    menace: Callable[..., Ran], args: list[str], message: str
) -> None:
    ran = menace(*args)
    assert ran.code == 2
    assert message in ran.err
    assert ran.out == ""


def test_in_a_terminal_the_picture_follows_the_text(
    menace: Callable[..., Ran], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    lines = menace("step", "3").out.splitlines()
    assert lines[:8] == golden(3)
    assert lines[8] == ""
    assert len(lines[9:]) == 5 and all(line.count("\u2580") == 30 for line in lines[9:])
