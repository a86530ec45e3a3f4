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
