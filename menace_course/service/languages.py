"""The language of a page the service answers, and gettext in its templates.

A page speaks the language the student chose on a page (``?lang=zh_TW``, kept in the
session; the links at the top of every page), else the one the browser asks for
(``Accept-Language``, best first) when there is a catalog for it, else English: the
service's student pages through jinja2's i18n extension (:func:`install`), and the feedback
in them (``intake.feedback``) through the same catalogs as ``menace check``
(:mod:`menace_course.language`). ``menace check --server`` sends its own language the same
way, so the feedback it prints is in the student's language.
"""

from __future__ import annotations

from flask import Flask, current_app, has_request_context, request, session

from menace_course import language

#: Where the session keeps a language chosen on a page.
CHOSEN = "language"


def request_language() -> str:
    """The language of this request's page: the one chosen, else the browser's first we have, else English."""
    if not has_request_context():
        return language.ENGLISH
    asked = request.args.get("lang")
    found = language.known(asked) if asked else None
    if found is not None:
        return found  # this page's own ?lang= (also where there is no session to keep it)
    chosen = session.get(CHOSEN)
    if isinstance(chosen, str) and chosen in language.LANGUAGES:
        return chosen
    return language.best_match(request.accept_languages.values()) or language.ENGLISH


def gettext(message: str) -> str:
    """``message`` in this request's language: for what an API answer says to the student (its ``message``).

    The API's ``error`` code stays the same in every language; its ``message`` is the sentence
    the browser's client and ``menace check --server`` show as they have it.
    """
    return language.gettext(message, request_language())


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural of a message, by ``n``, in this request's language."""
    return language.ngettext(singular, plural, n, request_language())


def remember_choice() -> None:
    """``?lang=zh_TW`` (or ``en``) on any page: keep that language for this browser's session."""
    asked = request.args.get("lang")
    found = language.known(asked) if asked else None
    if found is not None and current_app.secret_key and session.get(CHOSEN) != found:
        session[CHOSEN] = found


def install(app: Flask) -> None:
    """Give ``app``'s templates ``_()`` and ``ngettext()`` in each request's language, and ``page_lang``.

    Once per app: the service's pages and the lesson page's blueprint both ask for it.
    """
    if app.extensions.get("menace_languages"):
        return
    app.extensions["menace_languages"] = True
    env = app.jinja_env
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda message: language.gettext(message, request_language()),
        ngettext=lambda one, many, n: language.ngettext(one, many, n, request_language()),
        newstyle=True,
    )
    app.before_request(remember_choice)
    app.context_processor(lambda: {"page_lang": request_language().replace("_", "-")})
