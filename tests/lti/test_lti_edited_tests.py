"""An instructor edits a challenge's hidden tests while the service runs: the gradebook follows.

Checks use the edited suite at once (the grader keeps suites by content); the maximum
score sent to the LMS must be the same suite's, not the one seen before the edit.
"""

from __future__ import annotations

import pytest

from tests.lti.conftest import Browser, Service, add_activity, check_on_page, scores_of, wait_for
from tests.lti.lms import RunningPlatform
from tests.support import REPO

pytestmark = pytest.mark.slow

RIGHT = (REPO / "reference" / "new_box.py").read_text(encoding="utf-8")

#: A hidden test worth 5 points that every submission defining new_box passes.
ADDED = '''
from menace_course import points


@points(5)
def test_it_is_there(submission):
    """new_box is defined"""
    assert submission.new_box is not None
'''


def test_after_a_hidden_test_is_added_the_gradebook_gets_the_new_maximum_without_a_restart(
    service: Service, lms: RunningPlatform
) -> None:
    link_id = add_activity(lms, "new_box")  # the maximum is asked for (and seen) before the edit
    before = service.lti.max_score("new_box")
    lineitem = lms.state.links[link_id].lineitem_id
    added = service.course / "hidden_tests" / "new_box" / "test_added_later.py"
    added.write_text(ADDED, encoding="utf-8")
    try:
        browser = Browser()
        browser.launch(lms, "alice", link_id)
        check_on_page(browser, service, "new_box", RIGHT)
        (post,) = wait_for(lambda: scores_of(lms, "alice", lineitem), what="alice's score")
        assert post.body["scoreGiven"] == before + 5  # the check ran the added test
        assert post.body["scoreMaximum"] == before + 5  # full marks are full marks in the gradebook
        assert service.lti.max_score("new_box") == before + 5
    finally:
        added.unlink()
    assert service.lti.max_score("new_box") == before
