"""Import a trusted Python file (a hidden test module, a reference) as a module of its own.

The one way the grader imports a course's files. The module's name is made from the
file's resolved path and its content (``menace_file_<sha256>``), so the same file is
imported once per process however often it is asked for, and a file that changed (an
instructor edited a test while ``menace serve`` runs) is imported afresh. Never used for
student code: that only ever runs in the sandbox.

A module may be imported with an ``importer`` of its own in place of ``__import__`` (the
hypothesis stand-in of :mod:`~menace_course.checking.standin`): it is then a separate
module, under a name of its own, and nothing else sees that importer.
"""

from __future__ import annotations

import builtins
import hashlib
import importlib.util
import marshal
import sys
from collections.abc import Callable
from pathlib import Path
from types import CodeType, ModuleType
from typing import Any

from menace_course.cache import kept

#: What the name of every module imported from a course's file starts with.
MODULE_PREFIX = "menace_file_"


def module_name(path: Path, data: bytes) -> str:
    """The module name a file with this path and content is imported under."""
    digest = hashlib.sha256(str(path.resolve()).encode() + b"\0" + data).hexdigest()
    return f"{MODULE_PREFIX}{digest[:20]}"


def code_of(path: Path, data: bytes) -> CodeType:
    """``data`` (the bytes of ``path``) compiled, from the cache when this Python compiled it before.

    The bytes read, not the file again, and not Python's own ``__pycache__``: a ``.pyc`` is
    checked by the file's size and whole-second mtime, which a quick edit can keep. The
    cache's file is named by a checksum of the bytes, the path (it is in the code's
    frames) and the Python, and sealed like the rest of the cache (:func:`~menace_course.cache.kept`):
    code is only ever read back from a file this user's menace wrote. A check in a process of
    its own then loads its tests' code (a fraction of a millisecond) instead of compiling it
    (about 3 ms for after_game's tests and reference).

    Raises:
        SyntaxError: the file is not valid Python (nothing is kept).
    """
    filename = str(path)
    stamp = f"{sys.version}\0{sys.flags.optimize}\0{filename}\0".encode()
    name = hashlib.sha256(stamp + data).hexdigest()[:32]

    def compiled() -> bytes:
        return marshal.dumps(compile(data, filename, "exec", dont_inherit=True))

    code = marshal.loads(kept("code", f"{path.stem}-{name}.code", compiled))
    if not isinstance(code, CodeType):
        raise TypeError(f"the cache gave no code for {filename}")  # (a sealed file is ours: never seen)
    return code


def import_file(path: Path, *, importer: Callable[..., Any] | None = None) -> ModuleType:
    """Import ``path`` (once per content), running its top-level code in this process.

    With ``importer``, the module's ``import`` statements call it instead of
    ``__import__`` (its functions' too); the module is kept apart from the plain import.

    Raises:
        FileNotFoundError: there is no such file.
        Exception: whatever the file's own code raises while it is imported.
    """
    data = path.read_bytes()
    name = module_name(path, data)
    if importer is not None:
        name += f"_{importer.__name__}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    if importer is not None:
        module.__dict__["__builtins__"] = {**vars(builtins), "__import__": importer}
    sys.modules[name] = module  # before running it, as Python does (dataclasses look it up)
    try:
        exec(code_of(path, data), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module
