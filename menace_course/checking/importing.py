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
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any


def module_name(path: Path, data: bytes) -> str:
    """The module name a file with this path and content is imported under."""
    digest = hashlib.sha256(str(path.resolve()).encode() + b"\0" + data).hexdigest()
    return f"menace_file_{digest[:20]}"


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
        # The bytes read above, not the file again and not a cached .pyc: Python checks a
        # .pyc by the file's size and whole-second mtime, which a quick edit can keep.
        exec(compile(data, str(path), "exec", dont_inherit=True), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module
