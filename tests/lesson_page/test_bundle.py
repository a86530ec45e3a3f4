"""The committed browser bundles are the ones ``frontend/`` builds, and they ship in the wheel.

``frontend/build.mjs`` writes ``manifest.json`` beside the bundles: a digest of every
input of the build and the sha256 of every file written. These tests recompute both, so
a change to ``frontend/src`` or to the pinned packages without ``npm run build``, or a
bundle edited by hand, fails here. With npm on the machine, a slow test rebuilds from
the lock file and compares the bytes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.support import REPO

FRONTEND = REPO / "frontend"
DIST = REPO / "menace_course" / "service" / "static" / "dist"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def inputs_digest(frontend: Path) -> str:
    """The same digest as ``inputsDigest()`` in build.mjs: sorted ``path\\0sha256\\n`` lines."""
    files = [frontend / "build.mjs", frontend / "package.json", frontend / "package-lock.json"]
    files += [p for p in (frontend / "src").rglob("*") if p.is_file()]
    lines = sorted((p.relative_to(frontend).as_posix(), sha256(p.read_bytes())) for p in files)
    return sha256("".join(f"{name}\0{digest}\n" for name, digest in lines).encode())


def manifest() -> dict[str, object]:
    return json.loads((DIST / "manifest.json").read_text(encoding="utf-8"))


def test_the_bundles_were_built_from_the_sources_as_committed() -> None:
    assert manifest()["inputs"] == inputs_digest(FRONTEND), (
        "frontend/ changed since the bundles were built: run `npm ci && npm run build` in frontend/"
    )


def test_each_bundle_is_byte_for_byte_what_the_build_wrote() -> None:
    files = manifest()["files"]
    assert isinstance(files, dict) and "editor.js" in files
    for name, digest in files.items():
        assert sha256((DIST / name).read_bytes()) == digest, f"{name} was changed after the build"
    on_disk = {p.name for p in DIST.iterdir()} - {"manifest.json"}
    assert on_disk == set(files), "dist/ holds files the build did not write"


def test_the_dependencies_are_pinned_to_exact_versions() -> None:
    package = json.loads((FRONTEND / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((FRONTEND / "package-lock.json").read_text(encoding="utf-8"))
    wanted = {**package["dependencies"], **package["devDependencies"]}
    assert {"codemirror", "@codemirror/lang-python", "esbuild"} <= set(wanted)
    for name, version in wanted.items():
        assert version[0].isdigit() and all(c.isdigit() or c == "." for c in version), (name, version)
        assert lock["packages"][f"node_modules/{name}"]["version"] == version
    for path, entry in lock["packages"].items():
        if path:
            assert entry.get("integrity", "").startswith("sha512-"), f"{path} has no integrity hash"


def test_the_bundles_load_nothing_from_another_site() -> None:
    for name in ("editor.js",):
        text = (DIST / name).read_text(encoding="utf-8")
        for marker in ("cdn.", "unpkg", "jsdelivr", "googleapis", 'import("http'):
            assert marker not in text, f"{name} mentions {marker}"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed here")
def test_a_clean_build_from_the_lock_file_gives_the_same_bytes(tmp_path: Path) -> None:
    work = tmp_path / "frontend"
    shutil.copytree(FRONTEND, work, ignore=shutil.ignore_patterns("node_modules"))
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=work, check=True, capture_output=True)
    out = tmp_path / "dist"
    subprocess.run(["node", "build.mjs", "--outdir", str(out)], cwd=work, check=True, capture_output=True)
    for name in [*manifest()["files"], "manifest.json"]:  # type: ignore[misc]
        assert (out / name).read_bytes() == (DIST / name).read_bytes(), f"{name} differs when rebuilt"


@pytest.mark.slow
def test_the_wheel_carries_the_bundles(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(tmp_path), "."],
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("menace_course-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in [*manifest()["files"], "manifest.json"]:  # type: ignore[misc]
        assert f"menace_course/service/static/dist/{name}" in names
