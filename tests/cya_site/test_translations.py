"""German is complete, and the compiled catalogue says what the .po file says."""

from __future__ import annotations

import gettext
import re
import shutil
from contextlib import chdir
from pathlib import Path
from typing import Any

import polib
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "locale"
# what ``make messages`` reads (it ignores .venv, var, tests, benchmarks and sdk)
SOURCES = ("accounts", "bots", "cya_site", "games", "tournaments", "locale")
PO = LOCALE / "de" / "LC_MESSAGES" / "django.po"
MO = LOCALE / "de" / "LC_MESSAGES" / "django.mo"


def _entries() -> list[polib.POEntry]:
    return [e for e in polib.pofile(str(PO)) if not e.obsolete]


def test_every_message_has_a_german_translation_and_none_is_fuzzy() -> None:
    untranslated = [e.msgid for e in _entries() if not e.translated()]

    assert untranslated == []


def test_the_compiled_catalogue_is_up_to_date_with_the_po_file() -> None:
    with MO.open("rb") as file:
        compiled = gettext.GNUTranslations(file)

    for entry in _entries():
        if entry.msgid_plural:
            for n, form in ((1, 0), (2, 1)):
                got = compiled.ngettext(entry.msgid, entry.msgid_plural, n)
                assert got == entry.msgstr_plural[form], entry.msgid
        else:
            assert compiled.gettext(entry.msgid) == entry.msgstr, entry.msgid


def test_placeholders_survive_translation() -> None:
    for entry in _entries():
        for translated in [entry.msgstr, *entry.msgstr_plural.values()]:
            if translated:
                assert _placeholders(translated) <= _placeholders(
                    entry.msgid + (entry.msgid_plural or "")
                ), entry.msgid


def _placeholders(text: str) -> set[str]:
    return set(re.findall(r"%\(\w+\)[sd]|\{\w+\}", text))


def test_every_text_in_the_code_and_templates_is_in_the_catalogue(
    tmp_path: Path, settings: Any
) -> None:
    """What ``make messages`` would add is already there: a new text cannot reach a page
    without its German. makemessages runs over a copy of the sources, so that it writes
    into a copy of the catalogue (it writes beside the files it reads)."""
    source = tmp_path / "src"
    for package in SOURCES:
        shutil.copytree(ROOT / package, source / package, ignore=shutil.ignore_patterns("*.pyc"))
    settings.LOCALE_PATHS = [source / "locale"]
    with chdir(source):
        call_command("makemessages", locale=["de"], no_location=True, verbosity=0)

    fresh = polib.pofile(str(source / "locale" / "de" / "LC_MESSAGES" / "django.po"))
    known = {entry.msgid for entry in _entries()}
    assert [e.msgid for e in fresh if not e.obsolete and e.msgid not in known] == []
