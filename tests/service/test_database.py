"""The database: Alembic's migrations make exactly the models' schema; attempts are recorded once."""

from __future__ import annotations

import pytest
from sqlalchemy import inspect, text

from menace_course.models import Status, SubmissionReport
from menace_course.service.db.attempts import mark_running, record_result, store_attempt, unfinished
from menace_course.service.db.engine import Database, is_current
from menace_course.service.db.people import (
    add_local_user,
    context_for,
    new_login_link,
    revoke,
    use_login_link,
    user_by_token,
    user_for,
)
from menace_course.service.db.tables import AttemptStatus, Base, Role


def test_the_migrations_create_exactly_the_models_tables(db_url: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    database = Database(db_url)
    assert not is_current(database.engine)
    database.upgrade()
    database.upgrade()  # a second run changes nothing
    assert is_current(database.engine)
    with database.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []
        assert set(inspect(connection).get_table_names()) >= set(Base.metadata.tables)
    database.dispose()


def _report(score: float) -> SubmissionReport:
    return SubmissionReport(
        "after_game", "After a game", "after_game", "a.py", "process", Status.CHECKED, (), score, 15.0
    )


def test_a_report_is_recorded_once_whatever_runs_it_again(db_url: str) -> None:
    database = Database(db_url)
    database.upgrade()
    with database.writing() as session:
        context = context_for(session)
        attempt = store_attempt(
            session,
            context_id=context.id,
            user_id=None,
            challenge="after_game",
            filename="a.py",
            source="x=1\n",
        )
    with database.reading() as session:
        assert [a.id for a in unfinished(session)] == [attempt.id]
    with database.writing() as session:
        assert mark_running(session, attempt.id)
        assert record_result(session, attempt.id, _report(3.0))
    with database.writing() as session:
        assert not mark_running(session, attempt.id)
        assert not record_result(session, attempt.id, _report(15.0))
    with database.reading() as session:
        assert unfinished(session) == []
        kept = session.get(type(attempt), attempt.id)
        assert kept is not None
        assert kept.status is AttemptStatus.DONE and kept.score == 3.0 and kept.runs == 1
        assert kept.report == _report(3.0).to_dict()  # the column holds the report's JSON
        assert len(kept.sha256) == 64
    database.dispose()


def test_tokens_are_stored_hashed_and_revoking_ends_them(db_url: str) -> None:
    database = Database(db_url)
    database.upgrade()
    with database.writing() as session:
        user, token = add_local_user(session, "alice", Role.LEARNER)
        code = new_login_link(session, user)
    with database.reading() as session:
        assert user_by_token(session, token) is not None
        assert user_by_token(session, token[:-1] + ("A" if token[-1] != "A" else "B")) is None
        stored = session.execute(Base.metadata.tables["tokens"].select()).all()
        assert all(token not in str(row) for row in stored)
    with database.writing() as session:
        assert use_login_link(session, code) is not None
    with database.writing() as session:
        assert use_login_link(session, code) is None  # one time only
        user = user_for(session, "local", "alice", "alice")
        epoch = user.session_epoch
        assert revoke(session, user) == 1
        assert user.session_epoch == epoch + 1
    with database.reading() as session:
        assert user_by_token(session, token) is None
    database.dispose()


def test_an_issuer_and_subject_name_one_user_and_contexts_are_apart(db_url: str) -> None:
    database = Database(db_url)
    database.upgrade()
    with database.writing() as session:
        one = user_for(session, "https://canvas.example", "sub-1", "Jane")
        again = user_for(session, "https://canvas.example", "sub-1", "Jane Doe")
        other = user_for(session, "https://moodle.example", "sub-1", "Someone else")
        assert one.id == again.id != other.id and again.name == "Jane Doe"
        course_a = context_for(session, "https://canvas.example", "course-a")
        course_b = context_for(session, "https://canvas.example", "course-b")
        assert course_a.id != course_b.id != context_for(session).id
    database.dispose()


@pytest.mark.postgres
def test_a_pooled_connection_that_died_while_idle_is_replaced_without_an_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import psycopg

    from menace_course.service.db import engine as engine_module
    from tests.service.support import postgres_database

    with postgres_database() as url:
        database = Database(url)
        with database.reading() as session:
            assert session.execute(text("SELECT 1")).scalar() == 1
        admin = database.engine.url.set(drivername="postgresql", database="postgres")
        with psycopg.connect(admin.render_as_string(hide_password=False), autocommit=True) as connection:
            ended = connection.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (database.engine.url.database,),
            ).fetchall()
        assert ended, "the pooled connection's server process was ended"
        monkeypatch.setattr(engine_module, "PING_AFTER_IDLE_SECONDS", 0.0)  # it has been idle long enough
        with database.reading() as session:
            assert session.execute(text("SELECT 2")).scalar() == 2  # a new connection, no error
        database.dispose()
