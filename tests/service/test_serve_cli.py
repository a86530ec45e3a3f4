"""``menace serve``'s options and its refusals: each a plain line and exit 2, never a traceback."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from tests.service.support import menace
from tests.support import REPO


def test_serve_help_documents_every_option() -> None:
    done = menace("serve", "--help")
    assert done.returncode == 0
    for option in (
        "--host",
        "--port",
        "--db",
        "--workers",
        "--course",
        "--open",
        "--max-queue",
        "--per-student",
        "--rate-limit",
        "--check-seconds",
        "--behind-proxy",
        "--public-url",
    ):
        assert option in done.stdout
    assert "export" in done.stdout


@pytest.mark.parametrize(
    "module, name, argv",
    [
        ("menace_course.commands.serve", "serve", ["serve"]),
        ("menace_course.commands.serve", "serve", ["serve", "export"]),
        ("menace_course.commands.worker", "worker", ["worker"]),
        ("menace_course.commands.worker", "worker", ["worker", "status"]),
        ("menace_course.commands.users", "users", ["users", "add"]),
        ("menace_course.commands.users", "users", ["users", "list"]),
        ("menace_course.commands.users", "users", ["users", "link"]),
        ("menace_course.commands.users", "users", ["users", "revoke"]),
    ],
)
def test_every_option_of_the_service_commands_is_in_their_help(
    module: str, name: str, argv: list[str]
) -> None:
    import importlib

    import click

    command = getattr(importlib.import_module(module), name)
    for sub in argv[1:]:
        command = command.commands[sub]
    shown = menace(*argv, "--help")
    assert shown.returncode == 0, shown.stderr
    help_text = " ".join(shown.stdout.split())
    for param in command.params:
        if isinstance(param, click.Option) and param.name != "help":
            assert param.help, f"menace {' '.join(argv)} {param.opts[0]} has no help"
            assert param.opts[0] in help_text, param.opts[0]


def test_a_students_kit_cannot_be_served(tmp_path: Path) -> None:
    kit = tmp_path / "kit"
    for part in ("challenges", "feedback_templates"):
        shutil.copytree(REPO / part, kit / part)
    done = menace("serve", "--course", str(kit), "--db", f"sqlite:///{tmp_path / 'x.sqlite3'}")
    assert done.returncode == 2
    assert "no hidden_tests/" in done.stderr and "Traceback" not in done.stderr


def test_a_port_in_use_is_named(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        done = menace("serve", "--port", str(port), "--db", f"sqlite:///{tmp_path / 'x.sqlite3'}")
    assert done.returncode == 2
    assert f"127.0.0.1:{port} is in use" in done.stderr


def test_bad_settings_are_refused_before_anything_starts(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'x.sqlite3'}"
    for args, words in (
        (("--db", "mysql://u@h/d"), "SQLite or PostgreSQL"),
        (("--db", "not a url"), "is not a database URL"),
        (("--db", "postgresql://nobody@127.0.0.1:1/none"), "cannot open the database"),
        (("--db", db, "--rate-limit", "lots"), "is not a limit"),
        (("--db", db, "--sandbox", "process"), "--i-accept-no-sandbox"),
        (("--db", db, "--port", "70000"), "70000"),
    ):
        port = () if "--port" in args else ("--port", "0")  # never depend on 8000 being free
        done = menace("serve", *args, *port)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert words in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
