"""The catalogs are whole and current: every sentence a student reads is in them, translated, compiled.

To change a sentence or add one: ``docs/translating.md`` (extract, update, translate, compile).
These tests fail until that is done: a sentence outside the catalog, a ``.pot`` or a ``.po``
behind the code, a ``.mo`` behind its ``.po``, a translation that drops or renames a value.
"""

from __future__ import annotations

import gettext
import io
from pathlib import Path

import pytest

from menace_course import language
from tests.support import REPO

babel = pytest.importorskip("babel")  # the development install has it (pyproject's dev extra)
from babel.messages.extract import extract_from_dir  # noqa: E402
from babel.messages.frontend import parse_mapping_cfg  # noqa: E402
from babel.messages.mofile import write_mo  # noqa: E402
from babel.messages.pofile import read_po  # noqa: E402

LOCALE = REPO / "menace_course" / "locale"
POT = LOCALE / "menace.pot"
TRANSLATED = [lang for lang in language.LANGUAGES if lang != language.ENGLISH]


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / "menace.po"


def read(path: Path):
    with path.open("rb") as f:
        return read_po(f)


def ids(catalog) -> set:
    return {m.id if isinstance(m.id, str) else tuple(m.id) for m in catalog if m.id}


def extracted() -> set:
    """What ``pybabel extract -F babel.cfg -k N_`` finds now: the package, its pages, the feedback."""
    with (REPO / "babel.cfg").open(encoding="utf-8") as cfg:
        method_map, options = parse_mapping_cfg(cfg)
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None}
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        str(REPO), method_map, options, keywords=keywords
    ):
        found.add(message if isinstance(message, str) else tuple(message))
    return found


def test_the_template_catalog_holds_exactly_the_sentences_in_the_code_and_templates():
    # A sentence added without `pybabel extract` (or one left behind after it was removed) fails here.
    assert extracted() == ids(read(POT))


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_sentence_has_its_translation(lang):
    catalog = read(po_path(lang))
    assert ids(catalog) == ids(read(POT)), "run pybabel update (docs/translating.md)"
    untranslated = [
        m.id for m in catalog if m.id and not all(m.string if isinstance(m.string, tuple) else [m.string])
    ]
    assert untranslated == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_translation_keeps_the_values_of_its_sentence(lang):
    catalog = read(po_path(lang))
    problems = [(m.id, [str(e) for e in errors]) for m, errors in catalog.check()]
    assert problems == []


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_shipped_mo_is_compiled_from_the_po_as_it_is(lang):
    fresh = io.BytesIO()
    write_mo(fresh, read(po_path(lang)))
    shipped = language.LOCALE_DIR / lang / "LC_MESSAGES" / "menace.mo"
    assert shipped.is_file(), "pybabel compile -D menace -d menace_course/locale"
    fresh.seek(0)
    with shipped.open("rb") as f:
        assert gettext.GNUTranslations(f)._catalog == gettext.GNUTranslations(fresh)._catalog  # type: ignore[attr-defined]


def test_the_installed_package_reads_its_translations_from_its_own_folder():
    # An editable install reads menace_course/locale in the checkout, a wheel the copy it carries.
    assert isinstance(language.translations("zh_TW"), gettext.GNUTranslations)
    assert language.gettext("passed", "zh_TW") == "通過"
