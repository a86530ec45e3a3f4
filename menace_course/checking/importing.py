"""Import a trusted Python file (a hidden test module, a reference) as a module of its own.

The one way the grader imports a course's files. The module's name is made from the
file's resolved path and its content (``menace_file_<sha256>``), so the same file is
imported once per process however often it is asked for, and a file that changed (an
instructor edited a test while ``menace serve`` runs) is imported afresh. Never used for
student code: that only ever runs in the sandbox.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def module_name(path: Path, data: bytes) -> str:
    """The module name a file with this path and content is imported under."""
    digest = hashlib.sha256(str(path.resolve()).encode() + b"\0" + data).hexdigest()
    return f"menace_file_{digest[:20]}"


def import_file(path: Path) -> ModuleType:
    """Import ``path`` (once per content), running its top-level code in this process.

    Raises:
        FileNotFoundError: there is no such file.
        Exception: whatever the file's own code raises while it is imported.
    """
    data = path.read_bytes()
    name = module_name(path, data)
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before running it, as Python does (dataclasses look it up)
    try:
        # The bytes read above, not the file again and not a cached .pyc: Python checks a
        # .pyc by the file's size and whole-second mtime, which a quick edit can keep.
        exec(compile(data, str(path), "exec", dont_inherit=True), module.__dict__)
    except BaseException:
        del sys.modules[name]
        raise
    return module
