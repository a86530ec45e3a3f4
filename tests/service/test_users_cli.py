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
