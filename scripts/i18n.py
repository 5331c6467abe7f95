"""The message catalogs (issue 15 "One language"): extract, merge, compile.

    python scripts/i18n.py           # update both .po from the code, then compile each .mo
    python scripts/i18n.py --check   # exit 1 when a .po or .mo is not what the code needs

Needs Babel (the ``test`` extra; only here and in tests: at run time the package reads the
compiled ``.mo`` with the standard library's ``gettext``). Message ids are the English
sentences of ``_()``, ``N_()`` and ``ngettext()`` calls in ``python/sorteio``. New ids get an
empty ``msgstr`` in ``pt_BR`` (a person translates it; ``tests/test_i18n.py`` fails until then)
and themselves in ``en`` (the English catalog starts as the ids and may reword them). Ids the
code no longer uses are dropped. Output is sorted, without source lines, so a diff shows only
messages that changed.
"""

import argparse
import gettext
import io
import re
import sys
from datetime import datetime, timezone
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "sorteio"
LOCALE = PACKAGE / "locale"
DOMAIN = "sorteio"
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}
LANGS = ("pt_BR", "en")
# Fixed header dates: a diff of a catalog shows only its messages.
DATE = datetime(2026, 12, 3, tzinfo=timezone.utc)


def template() -> Catalog:
    """Every message id of the package's code."""
    pot = Catalog(project="sorteio", domain=DOMAIN, creation_date=DATE, revision_date=DATE)
    for filename, lineno, message, comments, context in extract_from_dir(
            str(PACKAGE), method_map=[("**.py", "python")], keywords=KEYWORDS,
            comment_tags=("i18n:",), strip_comment_tags=True):
        pot.add(message, None, [(filename, lineno)], auto_comments=comments, context=context)
    return pot


def po_path(lang: str) -> Path:
    return LOCALE / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


def read(lang: str) -> Catalog:
    path = po_path(lang)
    if not path.exists():
        return Catalog(locale=lang, project="sorteio", domain=DOMAIN, creation_date=DATE,
                       revision_date=DATE)
    with path.open("rb") as f:
        return read_po(f, locale=lang, domain=DOMAIN)


def merged(lang: str, pot: Catalog) -> Catalog:
    """``lang``'s catalog updated to ``pot``: kept translations, new ids, none obsolete."""
    cat = read(lang)
    cat.update(pot, no_fuzzy_matching=True)
    cat.obsolete.clear()
    cat.revision_date = DATE
    cat.fuzzy = False
    cat.msgid_bugs_address = ""
    cat.last_translator = "sorteio"
    cat.language_team = "sorteio"
    cat.header_comment = (f"# sorteio's messages, {lang} (issue 15 \"One language\").\n"
                          "# Edit msgstr here; `python scripts/i18n.py` compiles the .mo.")
    if lang == "pt_BR":  # 1 carta, 2 cartas (CLDR's third form, for millions, is not needed)
        cat._num_plurals, cat._plural_expr = 2, "(n != 1)"
    for message in cat:
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.id and lang == "en" and not any(strings):
            message.string = message.id
        message.locations = []
    return cat


def po_bytes(cat: Catalog) -> bytes:
    buf = io.BytesIO()
    write_po(buf, cat, width=100, no_location=True, sort_output=True)
    return buf.getvalue()


def mo_bytes(cat: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, cat, use_fuzzy=False)
    return buf.getvalue()


def _same(path: Path, data: bytes) -> bool:
    """Whether ``path`` already holds ``data``, up to the Babel version named in the header (so
    another Babel release neither rewrites the catalogs nor fails ``--check``)."""
    if not path.exists():
        return False
    old = path.read_bytes()
    if path.suffix == ".mo":
        def table(raw: bytes) -> dict:
            entries = gettext.GNUTranslations(io.BytesIO(raw))._catalog
            return {k: v for k, v in entries.items() if k != ""}
        return table(old) == table(data)
    generated = re.compile(rb'"Generated-By: Babel [^"]*"\n')
    return generated.sub(b"", old) == generated.sub(b"", data)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    pot = template()
    stale = []
    for lang in LANGS:
        cat = merged(lang, pot)
        # the .mo is compiled from the .po as written (read back), as a translator leaves it
        po = po_bytes(cat)
        mo = mo_bytes(read_po(io.BytesIO(po), locale=lang, domain=DOMAIN))
        for path, data in ((po_path(lang), po), (po_path(lang).with_suffix(".mo"), mo)):
            if not _same(path, data):
                stale.append(path)
                if not args.check:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
        missing = [m.id for m in cat if m.id and not m.string]
        if missing:
            print(f"{po_path(lang)}: {len(missing)} message(s) without a translation",
                  file=sys.stderr)
    for path in stale:
        print(f"{'stale' if args.check else 'wrote'}: {path.relative_to(ROOT)}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
