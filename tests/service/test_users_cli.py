"""``menace users``: tokens that work, a list that tells, revocation that sticks."""

from __future__ import annotations

import re

from tests.service.support import menace


def test_users_add_prints_name_token_lines_and_the_tokens_sign_in(db_url: str) -> None:
    added = menace("users", "add", "alice", "bob", "--db", db_url)
    assert added.returncode == 0, added.stderr
    lines = added.stdout.splitlines()
    assert [line.split()[0] for line in lines] == ["alice", "bob"]
    assert all(re.fullmatch(r"\S+ mc_[A-Za-z0-9_-]{43}", line) for line in lines)
    assert "shown this once" in added.stderr

    from menace_course.service.db.engine import Database
    from menace_course.service.db.people import user_by_token

    database = Database(db_url)
    with database.reading() as session:
        users = [user_by_token(session, line.split()[1]) for line in lines]
        assert [u.name for u in users if u is not None] == ["alice", "bob"]
    database.dispose()

    listed = menace("users", "list", "--db", db_url)
    assert listed.returncode == 0
    assert re.search(r"^alice\s+learner\s+active\s+1\s+0", listed.stdout, re.MULTILINE)

    revoked = menace("users", "revoke", "bob", "--db", db_url)
    assert revoked.returncode == 0 and "bob: revoked (1 token" in revoked.stdout
    listed = menace("users", "list", "--db", db_url)
    assert re.search(r"^bob\s+learner\s+revoked\s+0", listed.stdout, re.MULTILINE)
    with database.reading() as session:
        assert user_by_token(session, lines[1].split()[1]) is None
        assert user_by_token(session, lines[0].split()[1]) is not None
    database.dispose()


def test_bad_names_and_unknown_users_are_exit_2_with_a_reason(db_url: str) -> None:
    spaced = menace("users", "add", "alice smith", "--db", db_url)
    assert spaced.returncode == 2 and "is not a user name" in spaced.stderr
    unknown = menace("users", "revoke", "nobody", "--db", db_url)
    assert unknown.returncode == 2 and "no such user: nobody" in unknown.stderr
    no_url = menace("users", "link", "alice", "--url", "example.org", "--db", db_url)
    assert no_url.returncode == 2
    bad_db = menace("users", "list", "--db", "mysql://x/y")
    assert bad_db.returncode == 2 and "SQLite or PostgreSQL" in bad_db.stderr
    assert "Traceback" not in spaced.stderr + unknown.stderr + bad_db.stderr


def test_an_instructor_is_listed_as_one_and_links_are_printed(db_url: str) -> None:
    added = menace("users", "add", "--instructor", "carol", "--db", db_url)
    assert added.returncode == 0
    assert "/instructor shows the class table" in added.stderr and "students" not in added.stderr
    listed = menace("users", "list", "--db", db_url)
    assert re.search(r"^carol\s+instructor\s+active", listed.stdout, re.MULTILINE)
    link = menace("users", "link", "carol", "--url", "http://127.0.0.1:8000/", "--db", db_url)
    assert link.returncode == 0
    assert re.fullmatch(r"carol http://127\.0\.0\.1:8000/login/mc_[A-Za-z0-9_-]{43}\n", link.stdout)


def test_tokens_written_with_out_are_private_and_warned_about_inside_an_unignoring_git_repository(
    db_url: str, tmp_path
) -> None:
    import subprocess

    course = tmp_path / "course"
    course.mkdir()
    subprocess.run(["git", "init", "-q", str(course)], check=True)
    inside = course / "tokens.txt"
    added = menace("users", "add", "alice", "--out", str(inside), "--db", db_url)
    assert added.returncode == 0, added.stderr
    assert added.stdout == ""  # the token went to the file, nowhere else
    assert re.fullmatch(r"alice mc_[A-Za-z0-9_-]{43}\n", inside.read_text())
    assert inside.stat().st_mode & 0o777 == 0o600
    assert "inside a git repository that does not ignore it" in added.stderr

    (course / ".gitignore").write_text("tokens.txt\n")
    again = menace("users", "add", "bob", "--out", str(inside), "--db", db_url)
    assert again.returncode == 0 and "git repository" not in again.stderr

    outside = tmp_path / "tokens.txt"
    elsewhere = menace("users", "add", "cy", "--out", str(outside), "--db", db_url)
    assert elsewhere.returncode == 0 and "git repository" not in elsewhere.stderr


def test_tokens_redirected_into_a_file_of_a_git_repository_are_warned_about(db_url: str, tmp_path) -> None:
    import subprocess
    import sys

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    with (tmp_path / "tokens.txt").open("w") as redirected:
        done = subprocess.run(
            [sys.executable, "-m", "menace_course", "users", "add", "dan", "--db", db_url],
            stdout=redirected,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    assert done.returncode == 0
    assert "tokens.txt holds live tokens or sign-in links and is inside a git repository" in done.stderr
