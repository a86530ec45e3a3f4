"""Finding the students in a submissions folder: files, folders, notebooks, Canvas and Moodle names."""

from __future__ import annotations

import contextlib
import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
from grade_support import RIGHT, SYNTAX_ERROR, notebook, write

from menace_course.checking.walk import MAX_DEPTH
from menace_course.errors import UsageError
from menace_course.grading.discover import Entry, discover, entry_path
from menace_course.grading.names import identify


def entries(folder: Path) -> dict[str, Entry]:
    found = discover(folder, "after_game", "after_game")
    return {e.student: e for e in found.entries}


def test_a_file_is_the_student_named_by_its_stem(tmp_path: Path) -> None:
    found = entries(write(tmp_path, {"ada.py": RIGHT}))
    assert found["ada"].file == Path("ada.py")
    assert found["ada"].problem is None


def test_a_notebook_is_graded_like_a_file(tmp_path: Path) -> None:
    found = entries(write(tmp_path, {"dee.ipynb": notebook(RIGHT)}))
    assert found["dee"].file == Path("dee.ipynb")


def test_a_folder_with_one_python_file_grades_it_and_notes_the_rest(tmp_path: Path) -> None:
    found = entries(write(tmp_path, {"cy/answer.py": RIGHT, "cy/readme.txt": "hi"}))
    assert found["cy"].file == Path("cy/answer.py")
    assert any("readme.txt" in note for note in found["cy"].notes)


def test_of_several_files_the_one_defining_the_function_is_graded(tmp_path: Path) -> None:
    folder = write(tmp_path, {"cy/helpers.py": "def helper():\n    pass\n", "cy/mine.py": RIGHT})
    entry = entries(folder)["cy"]
    assert entry.file == Path("cy/mine.py")
    assert "graded mine.py" in entry.notes[0] and "helpers.py" in entry.notes[0]


def test_of_several_defining_files_the_one_named_after_the_function_is_graded(tmp_path: Path) -> None:
    folder = write(tmp_path, {"cy/a_draft.py": RIGHT, "cy/after_game.py": RIGHT, "cy/z.py": RIGHT})
    entry = entries(folder)["cy"]
    assert entry.file == Path("cy/after_game.py")
    assert "a_draft.py" in entry.notes[0] and "z.py" in entry.notes[0]


def test_a_file_with_a_syntax_error_still_counts_as_defining_the_function(tmp_path: Path) -> None:
    folder = write(tmp_path, {"cy/broken.py": SYNTAX_ERROR, "cy/other.py": "x = 1\n"})
    assert entries(folder)["cy"].file == Path("cy/broken.py")


def test_several_files_none_defining_the_function_give_a_row_with_the_reason(tmp_path: Path) -> None:
    folder = write(tmp_path, {"cy/a.py": "x = 1\n", "cy/b.py": "y = 2\n"})
    entry = entries(folder)["cy"]
    assert entry.file is None
    assert entry.problem is not None and entry.problem.code == "no_function"
    assert "a.py" in entry.problem.message and "b.py" in entry.problem.message


def test_an_empty_folder_is_a_student_with_nothing_handed_in(tmp_path: Path) -> None:
    entry = entries(write(tmp_path, {"fay": None}))["fay"]
    assert entry.problem is not None and entry.problem.code == "empty"


def test_a_file_that_is_not_python_is_a_row_saying_so(tmp_path: Path) -> None:
    entry = entries(write(tmp_path, {"lou.docx": "words"}))["lou"]
    assert entry.problem is not None and entry.problem.code == "no_python_file"
    assert "lou.docx" in entry.problem.message


def test_a_garbage_python_file_is_still_an_entry_to_grade(tmp_path: Path) -> None:
    entry = entries(write(tmp_path, {"gus.py": bytes(range(256))}))["gus"]
    assert entry.file == Path("gus.py")  # the loader, not discovery, says it is unreadable


def test_canvas_download_names_map_to_the_canvas_user_id(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        {
            "doejane_12345_67890_after_game.py": RIGHT,
            "doejane_12345_67891_notes.txt": "notes",
            "smithbob_LATE_222_333_menace.py": RIGHT,
        },
    )
    found = entries(folder)
    jane, bob = found["doejane"], found["smithbob"]
    assert jane.lms == {"canvas_id": "12345"} and jane.display_name == "after_game.py"
    assert "doejane_12345_67890_after_game.py" in jane.source and "notes.txt" in jane.source
    assert bob.lms == {"canvas_id": "222"} and bob.late
    assert jane.key != bob.key


def test_canvas_anonymous_and_text_entry_names_are_understood() -> None:
    anonymous = identify("LATE_anon_aBc12_777_after_game.py", is_folder=False)
    assert (anonymous.student, anonymous.lms_id, anonymous.late) == ("anon_aBc12", "aBc12", True)
    text = identify("doejane_12345_text.html", is_folder=False)
    assert (text.lms, text.lms_id, text.original) == ("canvas", "12345", "text.html")


def test_moodle_folders_and_files_map_to_the_participant_id(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        {
            "Kim Lee_424242_assignsubmission_file_/menace.py": RIGHT,
            "Kim Lee_424242_assignsubmission_onlinetext_/onlinetext.html": "<p>hi</p>",
            "Al Bo_1_assignsubmission_file_after_game.py": RIGHT,
        },
    )
    found = entries(folder)
    assert found["Kim Lee"].lms == {"moodle_id": "424242"}
    assert found["Kim Lee"].file == Path("Kim Lee_424242_assignsubmission_file_/menace.py")
    assert found["Al Bo"].lms == {"moodle_id": "1"} and found["Al Bo"].display_name == "after_game.py"


def test_system_litter_is_left_out_and_named(tmp_path: Path) -> None:
    folder = write(
        tmp_path, {"ada.py": RIGHT, "__MACOSX/._ada.py": "x", ".DS_Store": "x", "ada/.hidden.py": "x"}
    )
    found = discover(folder, "after_game", "after_game")
    assert [e.student for e in found.entries] == ["ada"]
    assert found.ignored == (".DS_Store", "__MACOSX")


def test_a_link_out_of_the_submissions_folder_is_refused_with_a_reason(tmp_path: Path) -> None:
    folder = write(tmp_path / "subs", {"ada.py": RIGHT})
    secret = write(tmp_path / "private", {"secret.py": RIGHT}) / "secret.py"
    os.symlink(secret, folder / "mallory.py")
    entry = entries(folder)["mallory"]
    assert entry.problem is not None and entry.problem.code == "unreadable"
    assert "outside" in entry.problem.message


def test_students_whose_names_reduce_to_the_same_key_keep_apart(tmp_path: Path) -> None:
    found = discover(write(tmp_path, {"a b.py": RIGHT, "a_b.py": RIGHT}), "after_game", "after_game")
    assert len({e.key for e in found.entries}) == 2


def test_a_file_and_a_folder_of_the_same_student_are_one_entry(tmp_path: Path) -> None:
    found = discover(
        write(tmp_path, {"ada.py": RIGHT, "ada/after_game.py": RIGHT}), "after_game", "after_game"
    )
    assert len(found.entries) == 1
    assert found.entries[0].source == "ada/, ada.py"
    assert found.entries[0].file == Path("ada/after_game.py")


def test_changing_a_file_changes_the_entry_digest(tmp_path: Path) -> None:
    folder = write(tmp_path, {"ada.py": RIGHT})
    before = entries(folder)["ada"].digest
    (folder / "ada.py").write_text(RIGHT + "\n# later\n", encoding="utf-8")
    assert entries(folder)["ada"].digest != before


def test_a_folder_that_cannot_be_listed_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="cannot list"):
        discover(tmp_path / "missing", "after_game", "after_game")


# -- hostile names and files (issue 8, item 7; the whole attacks are in tests/corpus/hostile_batch)


@contextlib.contextmanager
def within(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: an alarm interrupts even a blocked ``open`` (PEP 475)."""

    def late(signum: int, frame: object) -> None:
        raise TimeoutError(f"discovery took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, late)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_the_key_is_the_student_name_so_feedback_files_match_the_grades(tmp_path: Path) -> None:
    folder = write(tmp_path, {"Kim Lee_424242_assignsubmission_file_/menace.py": RIGHT, "ada.py": RIGHT})
    assert {e.student: e.key for e in discover(folder, "after_game", "after_game").entries} == {
        "Kim Lee": "Kim Lee",
        "ada": "ada",
    }


def test_names_that_differ_only_in_case_or_unsafe_characters_get_their_own_keys(tmp_path: Path) -> None:
    names = ["bob", "bob!", "bob-2", "Bob", "BOB", "bob (2)", "bob?", "bob*", "bob:"]
    folder = write(tmp_path, {f"{n}.py": RIGHT for n in names})
    found = discover(folder, "after_game", "after_game").entries
    assert sorted(e.student for e in found) == sorted(names)
    keys = [e.key.casefold() for e in found]
    assert len(set(keys)) == len(keys), keys
    by_student = {e.student: e.key for e in found}
    for safe in ("bob!", "bob-2", "bob (2)"):
        assert by_student[safe] == safe


def test_two_moodle_students_of_the_same_name_are_told_apart_by_their_ids(tmp_path: Path) -> None:
    folder = write(
        tmp_path,
        {"Jo Li_11_assignsubmission_file_/a.py": RIGHT, "Jo Li_22_assignsubmission_file_/a.py": RIGHT},
    )
    keys = sorted(e.key for e in discover(folder, "after_game", "after_game").entries)
    assert keys == ["Jo Li", "Jo Li (22)"]


def test_a_name_that_is_not_utf8_is_shown_as_windows_would_and_still_graded(tmp_path: Path) -> None:
    raw = os.fsencode(tmp_path) + b"/M\xfcller.py"
    Path(os.fsdecode(raw)).write_text(RIGHT, encoding="utf-8")
    entry = discover(tmp_path, "after_game", "after_game").entries[0]
    assert (entry.student, entry.key) == ("Müller", "Müller")
    assert "not UTF-8" in entry.notes[0] and "M\\xfcller.py" in entry.notes[0]
    data = entry.to_dict()
    json.dumps(data, ensure_ascii=False).encode("utf-8")  # no lone surrogate left anywhere
    assert data["file"] == "Müller.py"
    assert os.fsencode(entry_path(data, tmp_path)) == raw


def test_control_characters_in_a_name_are_shown_as_escapes(tmp_path: Path) -> None:
    write(tmp_path, {"\x1b[2Jeve\n.py": RIGHT})
    entry = discover(tmp_path, "after_game", "after_game").entries[0]
    assert entry.student == "\\x1b[2Jeve\\n" and "\x1b" not in entry.key and "\n" not in entry.key
    assert entry_path(entry.to_dict(), tmp_path).read_text(encoding="utf-8") == RIGHT


def test_a_link_to_another_students_file_is_never_followed(tmp_path: Path) -> None:
    write(tmp_path, {"alice.py": RIGHT, "mallory": None})
    os.symlink("../alice.py", tmp_path / "mallory" / "after_game.py")
    os.symlink("alice.py", tmp_path / "carol.py")
    found = entries(tmp_path)
    for student in ("mallory", "carol"):
        problem = found[student].problem
        assert problem is not None and problem.code == "unreadable", student
        assert "another entry" in problem.message and "never followed" in problem.message


def test_a_link_beside_a_real_answer_is_named_in_the_notes(tmp_path: Path) -> None:
    write(tmp_path, {"frank/src/mine.py": RIGHT})
    os.symlink("src/mine.py", tmp_path / "frank" / "after_game.py")
    entry = entries(tmp_path)["frank"]
    assert entry.file == Path("frank/src/mine.py")
    assert any("frank/after_game.py is a link (inside the same entry)" in note for note in entry.notes)


def test_a_fifo_never_blocks_discovery_and_is_named(tmp_path: Path) -> None:
    write(tmp_path, {"gina/after_game.py": RIGHT})
    os.mkfifo(tmp_path / "gina" / "notes.py")
    os.mkfifo(tmp_path / "fred.py")
    with within(10):
        found = entries(tmp_path)
    assert found["gina"].file == Path("gina/after_game.py")
    assert any("gina/notes.py is a named pipe (FIFO)" in note for note in found["gina"].notes)
    fred = found["fred"].problem
    assert fred is not None and fred.code == "unreadable" and "FIFO" in fred.message


def test_a_hard_link_shared_by_two_entries_asks_for_review(tmp_path: Path) -> None:
    write(tmp_path, {"alice.py": RIGHT, "hal": None})
    os.link(tmp_path / "alice.py", tmp_path / "hal" / "after_game.py")
    found = entries(tmp_path)
    assert any(n.startswith("needs review") and "hal" in n for n in found["alice"].notes)
    assert any(n.startswith("needs review") and "alice" in n for n in found["hal"].notes)


def test_folders_nested_past_the_limit_are_not_walked_and_said_so(tmp_path: Path) -> None:
    deep = tmp_path / "kim" / Path(*["d"] * (MAX_DEPTH + 2))
    write(deep, {"after_game.py": RIGHT})
    entry = entries(tmp_path)["kim"]
    assert entry.problem is not None and entry.problem.code == "unreadable"
    assert "deeper than" in entry.problem.message
    assert any("deeper than" in note for note in entry.notes)
