"""Who becomes an instructor: the roles claim read exactly as LTI 1.3 and the LIS vocabulary say.

Each case is a real signed launch from the test LMS (the learner ``bob``'s launch, with the
roles claim replaced before it is signed, under a subject of its own), and what is checked
is what the person could then do: open the instructor's passback table and class table, or
not. Only context (membership) roles of the launch's own course count; a sub-role belongs
to its principal role (``membership/Learner#Instructor`` is a learner); institution and
system roles never grant course rights.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.lti.conftest import Browser, Service, add_activity
from tests.lti.lms import RunningPlatform

pytestmark = pytest.mark.slow

LIS = "http://purl.imsglobal.org/vocab/lis/v2/"
ROLES = "https://purl.imsglobal.org/spec/lti/claim/roles"
CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context"

TEACHES = [
    pytest.param([LIS + "membership#Instructor"], id="membership#Instructor"),
    pytest.param(["Instructor"], id="simple-name-Instructor"),
    pytest.param([LIS + "membership/Instructor#TeachingAssistant"], id="sub-role-of-Instructor"),
    pytest.param([LIS + "membership#Administrator"], id="membership#Administrator"),
    pytest.param(["Administrator"], id="simple-name-Administrator"),
    pytest.param(
        [LIS + "membership#Learner", LIS + "membership#Instructor"],
        id="learner-and-instructor-of-this-course",
    ),
]
LEARNS = [
    pytest.param([LIS + "membership#Learner"], id="membership#Learner"),
    pytest.param(["Learner"], id="simple-name-Learner"),
    pytest.param([LIS + "membership/Learner#Instructor"], id="Learner#Instructor-sub-role"),
    pytest.param(
        [LIS + "membership#Learner", LIS + "membership/Learner#Instructor"], id="learner-with-its-sub-role"
    ),
    pytest.param([LIS + "membership/Learner#TeachingAssistant"], id="Learner#TeachingAssistant"),
    pytest.param([LIS + "institution/person#Instructor"], id="institution-Instructor"),
    pytest.param([LIS + "institution/person#Administrator"], id="institution-Administrator"),
    pytest.param([LIS + "institution/person#Faculty"], id="institution-Faculty"),
    pytest.param([LIS + "system/person#Administrator"], id="system-Administrator"),
    pytest.param([LIS + "system/person#SysAdmin"], id="system-SysAdmin"),
    pytest.param(
        [LIS + "membership#Learner", LIS + "institution/person#Instructor", LIS + "system/person#SysAdmin"],
        id="learner-here-staff-elsewhere",
    ),
    pytest.param(
        [LIS + "membership#Mentor", LIS + "membership#ContentDeveloper"], id="mentor-content-developer"
    ),
    pytest.param(["urn:lti:role:ims/lis/Instructor"], id="lti-1.1-urn-is-not-lti-1.3"),
    pytest.param(["http://example.com/roles#Instructor"], id="unknown-vocabulary"),
    pytest.param([LIS + "membership#Instructors"], id="misspelt"),
    pytest.param([LIS + "membership/Instructor#"], id="empty-sub-role"),
    pytest.param(["TeachingAssistant"], id="no-simple-name-for-sub-roles"),
    pytest.param([], id="no-roles"),
]


@pytest.fixture(scope="module")
def link(lms: RunningPlatform) -> str:
    return add_activity(lms, "after_game")


@pytest.fixture
def roles_launch(lms: RunningPlatform, link: str) -> Iterator[Any]:
    """Launch ``link`` as a new person whose roles claim is ``roles``; the browser, signed in."""
    counter = iter(range(10_000))

    def launch(roles: list[str], drop_context: bool = False) -> Browser:
        sub = f"roles-{id(roles)}-{next(counter)}"

        def mutate(message: dict[str, Any]) -> dict[str, Any]:
            changed = {**message, ROLES: roles, "sub": sub}
            if drop_context:
                changed.pop(CONTEXT, None)
            return changed

        lms.state.mutate_claims = mutate
        browser = Browser()
        page = browser.launch(lms, "bob", link)
        assert page.status_code == 200, page.text[:500]
        return browser

    yield launch
    lms.state.mutate_claims = None


def instructor_pages(browser: Browser, service: Service) -> set[int]:
    return {
        browser.get(f"{service.url}/lti/grades").status_code,
        browser.get(f"{service.url}/instructor/c/after_game").status_code,
    }


@pytest.mark.parametrize("roles", TEACHES)
def test_a_teaching_role_of_the_course_opens_the_instructors_pages(
    service: Service, roles_launch: Any, roles: list[str]
) -> None:
    assert instructor_pages(roles_launch(roles), service) == {200}


@pytest.mark.parametrize("roles", LEARNS)
def test_every_other_role_is_a_learner_who_sees_no_instructors_page(
    service: Service, roles_launch: Any, roles: list[str]
) -> None:
    browser = roles_launch(roles)
    assert browser.get(f"{service.url}/c/after_game").status_code == 200  # signed in, as a learner
    assert instructor_pages(browser, service) == {403}


def test_an_instructor_role_without_a_course_grants_nothing(service: Service, roles_launch: Any) -> None:
    browser = roles_launch([LIS + "membership#Instructor"], drop_context=True)
    assert instructor_pages(browser, service) == {403}
