"""The language of a page the service answers, and gettext in its templates.

A page speaks the language the browser asks for (``Accept-Language``, best first) when there
is a catalog for it, else English: the service's student pages through jinja2's i18n
extension (:func:`install`), and the feedback in them (``intake.feedback``) through the same
catalogs as ``menace check`` (:mod:`menace_course.language`). ``menace check --server`` sends
its own language the same way, so the feedback it prints is in the student's language.
"""

from __future__ import annotations

from flask import Flask, has_request_context, request

from menace_course import language


def request_language() -> str:
    """The language of this request's page: the browser's first choice we have, else English."""
    if not has_request_context():
        return language.ENGLISH
    return language.best_match(request.accept_languages.values()) or language.ENGLISH


def install(app: Flask) -> None:
    """Give ``app``'s templates ``_()`` and ``ngettext()`` in each request's language, and ``page_lang``."""
    env = app.jinja_env
    env.add_extension("jinja2.ext.i18n")
    env.install_gettext_callables(  # type: ignore[attr-defined]
        gettext=lambda message: language.gettext(message, request_language()),
        ngettext=lambda one, many, n: language.ngettext(one, many, n, request_language()),
        newstyle=True,
    )
    app.context_processor(lambda: {"page_lang": request_language().replace("_", "-")})
