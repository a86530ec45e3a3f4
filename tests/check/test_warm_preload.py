"""What the warm checker loads between checks (menace_course.warm.preload), in this process.

The warm checker itself, with copies that use what it loaded, is tested in
``test_warm_checker.py``; here are the parts that decide what is loaded, and how a course
that cannot be loaded is left alone.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from menace_course.checking import suite
from menace_course.warm import preload
from tests.support import copy_course


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A copy of the course to break freely."""
    return copy_course(tmp_path / "course")


@pytest.fixture
def own_suites(monkeypatch: pytest.MonkeyPatch) -> suite.Suites:
    """This test's own suites, so that nothing it loads stays in the process's."""
    fresh = suite.Suites()
    monkeypatch.setattr(suite, "SUITES", fresh)
    return fresh


def test_a_note_names_the_copys_pid_and_its_suites(own_suites, course, tmp_path, monkeypatch):
    assert preload.note() == b""  # nothing kept, nothing to say
    monkeypatch.setenv("MENACE_CACHE_DIR", str(tmp_path / "cache"))
    own_suites.get(suite.Course(course), "after_game")
    line = preload.note()
    assert line.endswith(b"\n") and len(line) <= preload.NOTE_BYTES
    assert preload.read_notes(line) == [(os.getpid(), [(course, "after_game")])]


def test_what_is_not_a_note_is_left_out():
    good = json.dumps({"pid": 7, "suites": [["/c", "name"], ["relative", "x"], ["/c", 3], "x"]})
    junk = [b"", b"not json", b"[]", b'{"pid": "7", "suites": []}', b'{"pid": true, "suites": []}']
    assert preload.read_notes(b"\n".join([*junk, good.encode()])) == [(7, [(Path("/c"), "name")])]


def test_a_suite_is_loaded_with_the_clients_environment_and_this_processs_is_kept(
    own_suites, course, tmp_path, monkeypatch
):
    monkeypatch.setenv("MENACE_CACHE_DIR", str(tmp_path / "own"))
    before = dict(os.environ)
    client = {**os.environ, "MENACE_CACHE_DIR": str(tmp_path / "client")}
    assert preload.preload([(course, "after_game")], client) == 1
    assert own_suites.collected() == [(course, "after_game")]
    assert dict(os.environ) == before
    assert (tmp_path / "client" / "examples").is_dir()  # the client's cache, not this process's
    assert not (tmp_path / "own").exists()


def test_a_course_whose_tests_do_not_load_is_left_for_the_copy_to_report(own_suites, course, tmp_path):
    (course / "hidden_tests" / "after_game" / "test_after_game.py").write_text(
        "raise RuntimeError('broken on purpose')\n", encoding="utf-8"
    )
    environment = {**os.environ, "MENACE_CACHE_DIR": str(tmp_path / "cache")}
    suites = [(course, "after_game"), (course, "no_such_challenge"), (tmp_path / "not_a_course", "x")]
    assert preload.preload(suites, environment) == 0
    assert own_suites.collected() == []


def test_loading_that_takes_too_long_is_given_up(own_suites, course, tmp_path, monkeypatch):
    (course / "hidden_tests" / "after_game" / "test_after_game.py").write_text(
        "import time\ntime.sleep(30)\n", encoding="utf-8"
    )
    monkeypatch.setattr(preload, "PRELOAD_SECONDS", 0.3)
    environment = {**os.environ, "MENACE_CACHE_DIR": str(tmp_path / "cache")}
    assert preload.preload([(course, "after_game")], environment) == 0
    assert own_suites.collected() == []


def test_a_copy_with_preloading_off_forgets_what_its_warm_checker_loaded(
    own_suites, course, tmp_path, monkeypatch
):
    import sys

    monkeypatch.setenv("MENACE_CACHE_DIR", str(tmp_path / "cache"))
    assert preload.preload([(course, "after_game")], dict(os.environ)) == 1
    assert any(name.startswith("menace_file_") for name in sys.modules)
    monkeypatch.setenv("MENACE_PRELOAD", "off")
    assert not preload.wanted()
    course_modules = {name: module for name, module in sys.modules.items() if name.startswith("menace_file_")}
    try:
        preload.forget()
        assert own_suites.collected() == []
        assert not any(name.startswith("menace_file_") for name in sys.modules)
        assert preload.note() == b""
    finally:
        sys.modules.update(course_modules)  # (the other tests' suites keep using them)
