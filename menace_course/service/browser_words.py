"""What the browser's check client says, in the student's language.

``frontend/src/check/client.js`` has these sentences in English as ``WORDS`` (its default,
which the lesson page and the unit tests use). The challenge page renders this table, in
the page's language, into ``<script id="check-words">``, and ``page.js`` gives it to the
client, so a student reading the page in Chinese is not told "Checking…" in English. The
keys and English sentences here and in ``WORDS`` are the same
(``tests/service/test_page_language.py`` compares them); values are filled in by name
(``%(n)s``) on both sides.
"""

from __future__ import annotations

from menace_course import language
from menace_course.wording import N_

#: The client's sentences by key, as message ids of the gettext catalog.
WORDS: dict[str, str] = {
    "unreachable": N_("could not reach the service; check your connection and try again"),
    "notACheck": N_("the service sent an answer that is not a check"),
    "serverAnswered": N_("the server answered %(status)s"),
    "tryingAgain": N_("%(message)s Trying again in %(seconds)s s…"),
    "noAddress": N_("the service did not say where the check is"),
    "takingLong": N_("the check is taking long; reload the page in a while to see it"),
    "checking": N_("Checking…"),
    "checkingStatus": N_("Checking… (%(status)s)"),
    "notLoaded": N_("Your program could not be loaded: see below."),
    "allPass": N_("✓ All %(n)s checks pass."),
    "somePass": N_("%(passed)s of %(n)s checks pass."),
    "feedbackTitle": N_("Feedback on your program"),
    "frameTitle": N_("Feedback"),
    "feedbackLink": N_("feedback"),
    "codeLink": N_("code"),
    "tryAgain": N_("Could not reach the service; try again."),
}


def browser_words(tag: str) -> dict[str, str]:
    """The client's sentences in ``tag``'s language (English where a sentence has no translation)."""
    return {key: language.gettext(message, tag) for key, message in WORDS.items()}
