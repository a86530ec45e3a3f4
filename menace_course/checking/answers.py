"""Did a test's own code fail because of an answer, or because the test is wrong?

A hidden test that does ``sorted(submission.opening_box(games))`` raises ``TypeError`` in
the grader when the answer mixes keys, and one that does ``answer.get(...)`` raises
``AttributeError`` when the answer is a list. That is the student's mistake (the answer was
not of the shape the challenge asks for), not the grader's. But a test with a bug of its own
raises the same errors, and that must never cost a student anything.

The two are told apart by the reference, in the grader: tests are oracle-free (the calls a
test makes never depend on the answers) and deterministic, so a test given exactly the
reference's answers takes exactly the reference's path, which ``menace validate`` has run
without error. So when a test's code raises one of :data:`ANSWER_SHAPE_ERRORS` outside the
grader's own plumbing, each answer that came back is compared with what the reference returns
for the same arguments: if one differs, the answer broke the test
(:class:`~menace_course.checking.testing.UnusableAnswer`, ``wrong_type``); if none does (or the
reference cannot say), the test is at fault and it stays a grader error.
"""

from __future__ import annotations

import traceback
from pathlib import Path
from typing import Any

from menace_course.checking.testing import reference

#: What a test's own code raises when an answer is not of the shape it looks at.
ANSWER_SHAPE_ERRORS = (TypeError, AttributeError, KeyError, IndexError, ValueError, ZeroDivisionError)
#: Answers compared with the reference's, at most (a property test may have made hundreds).
MAX_COMPARED = 200

_CHECKING = Path(__file__).resolve().parent
_PACKAGE = _CHECKING.parent
#: The package's own modules that look at answers on a test's behalf: a failure there is a
#: failure on the answer. Anywhere else in the package, it is the grader's plumbing.
_ANSWER_HELPERS = (str(_CHECKING / "testing.py"), str(_CHECKING / "compare.py"))


def _raised_by_the_test(error: BaseException) -> bool:
    """True when the innermost frame is the test, the reference, or a helper that looks at answers."""
    frames = traceback.extract_tb(error.__traceback__)
    if not frames:
        return False
    innermost = str(Path(frames[-1].filename).resolve()) if frames[-1].filename else ""
    return not innermost.startswith(str(_PACKAGE)) or innermost.startswith(_ANSWER_HELPERS)


def _same(got: Any, expected: Any) -> bool:
    try:
        return type(got) is type(expected) and bool(got == expected)
    except Exception:  # an answer decoded from the child compares as plain data; be safe anyway
        return False


def answer_broke_the_test(error: BaseException, submission: Any) -> bool:
    """True when ``error`` is the test's code failing on an answer that differs from the reference's.

    ``submission`` is the test's :class:`~menace_course.checking.proxy.SubmissionProxy`; its
    ``calls`` say what was asked and what came back. Run inside the course's references
    (:func:`~menace_course.checking.testing.course_references`).
    """
    if not isinstance(error, ANSWER_SHAPE_ERRORS) or not _raised_by_the_test(error):
        return False
    returned = [c for c in getattr(submission, "calls", ()) if c.outcome is not None]
    returned = [c for c in returned if c.outcome.status == "returned"][:MAX_COMPARED]
    for call in returned:
        try:
            expected = reference(call.function)(*call.args)
        except Exception:
            return False  # the reference cannot say: the test keeps the benefit of the doubt
        if not _same(call.outcome.result, expected):
            return True
    return False
