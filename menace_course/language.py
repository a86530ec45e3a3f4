"""Which language a student reads, and the translations for it (gettext, from ``menace_course/locale``).

Every sentence a student reads is an English gettext message id: in the feedback templates
(jinja2's i18n extension), in :mod:`~menace_course.wording`, and in what ``menace check``,
``start`` and ``show`` print. The catalogs are made with Babel (``pybabel extract`` and
``compile``, see ``docs/translating.md``); the compiled ``.mo`` files ship in the package, so
reading them needs only the standard library's :mod:`gettext`. A message with no
translation is shown in English, never as a raw id (the id *is* the English text).

The language is, in order: ``--lang`` on the command line, else the first of ``LANGUAGE``,
``LC_ALL``, ``LC_MESSAGES`` and ``LANG`` that is set (gettext's own order), else English. The
service uses a signed-in student's choice, else the browser's ``Accept-Language``.
"""

from __future__ import annotations

import contextvars
import functools
import gettext as _gettext
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

#: The gettext domain of every catalog.
DOMAIN = "menace"
#: Where the compiled catalogs are: ``locale/<language>/LC_MESSAGES/menace.mo``.
LOCALE_DIR = Path(__file__).parent / "locale"
#: English, the messages' own language.
ENGLISH = "en"
#: The languages there are catalogs for, English first.
LANGUAGES = (ENGLISH, "zh_TW")

_ALIASES = {
    "en": ENGLISH,
    "c": ENGLISH,
    "posix": ENGLISH,
    "zh_tw": "zh_TW",
    "zh_hant": "zh_TW",
    "zh_hant_tw": "zh_TW",
    "zh_hk": "zh_TW",
    "zh_mo": "zh_TW",
}

_current: contextvars.ContextVar[str] = contextvars.ContextVar("menace_language", default="")


def known(tag: str | None) -> str | None:
    """The catalog for a language tag (``zh-TW``, ``zh_TW.UTF-8``, ``en_GB``, ``C``), or None.

    >>> known("zh-TW"), known("zh_TW.UTF-8"), known("en_GB"), known("C"), known("fr"), known("")
    ('zh_TW', 'zh_TW', 'en', 'en', None, None)
    """
    if not tag:
        return None
    base = tag.split(".")[0].split("@")[0].replace("-", "_").lower()
    if base in _ALIASES:
        return _ALIASES[base]
    return ENGLISH if base.split("_")[0] == "en" else None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for, as gettext reads it; English when it names none we have.

    ``LANGUAGE`` may list several (``zh_TW:en``): the first we have a catalog for counts.
    """
    environ = os.environ if environ is None else environ
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name)
        if value:
            for tag in value.split(":"):
                found = known(tag)
                if found:
                    return found
            if name != "LANGUAGE":  # the first set variable decides, as in gettext
                return ENGLISH
    return ENGLISH


def best_match(tags: Iterable[str]) -> str | None:
    """The first of ``tags`` (best first, as from ``Accept-Language``) we have a catalog for."""
    for tag in tags:
        found = known(tag)
        if found:
            return found
    return None


def use(language: str) -> contextvars.Token[str]:
    """Make ``language`` the one this command (this context) speaks; :func:`reset` undoes it."""
    return _current.set(language)


def reset(token: contextvars.Token[str]) -> None:
    """Speak again what was spoken before :func:`use` gave ``token``."""
    _current.reset(token)


def current() -> str:
    """The language set by :func:`use`, else the environment's."""
    return _current.get() or from_environment()


@functools.cache
def translations(language: str) -> _gettext.NullTranslations:
    """The translations for ``language``: English (no catalog) when there is none."""
    if language == ENGLISH or language not in LANGUAGES:
        return _gettext.NullTranslations()
    return _gettext.translation(DOMAIN, LOCALE_DIR, [language], fallback=True)


def gettext(message: str, language: str | None = None) -> str:
    """``message`` in ``language`` (default: :func:`current`), or as it is when it has no translation."""
    return translations(language or current()).gettext(message)


def ngettext(singular: str, plural: str, n: int, language: str | None = None) -> str:
    """The singular or plural of a message, by ``n``, in ``language`` (default: :func:`current`)."""
    return translations(language or current()).ngettext(singular, plural, n)
