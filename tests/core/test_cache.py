"""The example cache cannot be poisoned: every file is sealed with a key only the grader reads."""

import json
import os

from menace_course import cache
from menace_course.checking.replay import ExampleStore


class FakeTest:
    """A stand-in for a hypothesis test whose examples the store generates."""

    def __init__(self, examples):
        self.examples = examples
        self.generated = 0


def store_with(monkeypatch, examples):
    test = FakeTest(examples)

    def generate(t):
        t.generated += 1
        return [dict(e) for e in t.examples]

    monkeypatch.setattr("menace_course.checking.replay.generate", generate)
    return test


def test_examples_come_back_from_the_cache_without_generating_again(cache_folder, monkeypatch):
    test = store_with(monkeypatch, [{"beads": [1, 2]}])
    first = ExampleStore("abc")
    assert first.examples("t", test) == [{"beads": [1, 2]}]
    first.save()
    again = ExampleStore("abc")
    assert again.examples("t", test) == [{"beads": [1, 2]}] and test.generated == 1


def test_a_cache_file_someone_else_rewrote_is_ignored_and_made_again(cache_folder, monkeypatch):
    test = store_with(monkeypatch, [{"beads": [1, 2]}])
    store = ExampleStore("abc")
    store.examples("t", test)
    store.save()
    assert store.path is not None
    forged = {"t": [{"beads": [9, 9]}]}
    store.path.write_text(json.dumps(forged))  # what a sandbox as the grader's user could do
    assert ExampleStore("abc").examples("t", test) == [{"beads": [1, 2]}] and test.generated == 2
    sealed = store.path.read_bytes()
    mac, _, data = sealed.partition(b"\n")
    store.path.write_bytes(mac + b"\n" + data.replace(b"[1, 2]", b"[9, 9]"))  # the right seal, new data
    assert ExampleStore("abc").examples("t", test) == [{"beads": [1, 2]}] and test.generated == 3


def test_the_key_and_the_folder_are_the_graders_alone(cache_folder):
    assert cache.seal(b"x") is not None
    assert cache_folder.stat().st_mode & 0o077 == 0
    assert (cache_folder / cache.KEY_FILE).stat().st_mode & 0o077 == 0


def test_a_folder_others_may_write_is_never_trusted(cache_folder):
    cache_folder.mkdir(mode=0o777)
    os.chmod(cache_folder, 0o777)
    assert cache.trusted_folder("examples") is None and cache.seal(b"x") is None
    assert ExampleStore("abc").path is None


def test_a_key_others_may_read_is_not_used(cache_folder):
    assert cache.seal(b"x") is not None
    os.chmod(cache_folder / cache.KEY_FILE, 0o644)
    assert cache.seal(b"x") is None and cache.unseal(b"0" * 64 + b"\nx") is None


def test_the_compiled_harness_comes_back_from_the_cache_without_compiling_again(cache_folder, monkeypatch):
    from menace_course.sandbox import child
    from menace_course.sandbox.launch import HARNESS_DIR

    source = HARNESS_DIR / "wire.py"
    first = child._compiled(source)
    assert list((cache_folder / "harness").glob("wire-*.pyc.sealed"))

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(child.py_compile, "compile", no_compiling)
    assert child._compiled(source) == first


def test_a_cached_harness_someone_else_rewrote_is_never_run_and_is_made_again(cache_folder):
    from menace_course.sandbox import child
    from menace_course.sandbox.launch import HARNESS_DIR

    source = HARNESS_DIR / "harness.py"
    genuine = child._compiled(source)
    [kept] = (cache_folder / "harness").glob("harness-*.pyc.sealed")
    mac, _, _ = kept.read_bytes().partition(b"\n")
    evil = genuine.replace(b"nonce", b"NONCE")  # what a child running as the grader could write
    for forged in (evil, mac + b"\n" + evil, b"0" * 64 + b"\n" + evil):
        kept.write_bytes(forged)
        assert child._compiled(source) == genuine


def test_a_test_files_code_comes_back_from_the_cache_without_compiling_again(
    cache_folder, tmp_path, monkeypatch
):
    from menace_course.checking import importing

    path = tmp_path / "test_beads.py"
    path.write_text("BEADS = 3\n")
    first = importing.code_of(path, path.read_bytes())
    assert list((cache_folder / "code").glob("test_beads-*.code"))

    def no_compiling(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(importing, "compile", no_compiling, raising=False)
    again = importing.code_of(path, path.read_bytes())
    assert again == first and again.co_filename == str(path)


def test_cached_code_someone_else_rewrote_is_never_run_and_is_made_again(cache_folder, tmp_path):
    import marshal

    from menace_course.checking import importing

    path = tmp_path / "test_beads.py"
    path.write_text("BEADS = 3\n")
    importing.code_of(path, path.read_bytes())
    [kept] = (cache_folder / "code").glob("test_beads-*.code")
    mac, _, _ = kept.read_bytes().partition(b"\n")
    evil = marshal.dumps(
        compile("BEADS = 666\n", str(path), "exec")
    )  # what a child as the grader could write
    for forged in (evil, mac + b"\n" + evil, b"0" * 64 + b"\n" + evil):
        kept.write_bytes(forged)
        namespace: dict[str, object] = {}
        exec(importing.code_of(path, path.read_bytes()), namespace)
        assert namespace["BEADS"] == 3


def test_an_edited_test_file_is_compiled_afresh_not_read_from_the_cache(cache_folder, tmp_path):
    from menace_course.checking import importing

    path = tmp_path / "test_beads.py"
    for beads in (3, 4):
        path.write_text(f"BEADS = {beads}\n")
        namespace: dict[str, object] = {}
        exec(importing.code_of(path, path.read_bytes()), namespace)
        assert namespace["BEADS"] == beads
    assert len(list((cache_folder / "code").glob("test_beads-*.code"))) == 2


def test_a_challenge_files_tables_come_back_from_the_cache_and_a_forged_file_is_ignored(
    cache_folder, monkeypatch
):
    import marshal

    from menace_course import catalog

    text = 'function = "after_game"\n[limits]\ncall_seconds = 2\n'
    assert catalog.parsed_toml(text) == {"function": "after_game", "limits": {"call_seconds": 2}}
    [kept] = (cache_folder / "toml").glob("*.toml.marshal")
    monkeypatch.setattr(catalog.tomllib, "loads", lambda text: {"parsed": "again"})
    assert catalog.parsed_toml(text)["function"] == "after_game"  # read back, not parsed
    mac, _, _ = kept.read_bytes().partition(b"\n")
    kept.write_bytes(mac + b"\n" + marshal.dumps({"function": "forged"}))
    assert catalog.parsed_toml(text) == {"parsed": "again"}  # the seal did not match: parsed again


def test_a_challenge_file_with_a_date_is_parsed_without_the_cache(cache_folder):
    import datetime

    from menace_course import catalog

    text = "opens = 2026-12-07\n"
    assert catalog.parsed_toml(text) == {"opens": datetime.date(2026, 12, 7)}
    assert not list((cache_folder / "toml").glob("*"))
