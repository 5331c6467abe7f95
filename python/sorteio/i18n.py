"""One language per run (issue 15 "One language"): every sentence a person reads from the
package, in Brazilian Portuguese (``pt-BR``, the studio's default) or English (``en``).

Catalogs are gettext's, read with the standard library only (the core runs on CPython 3.8
inside godot-python and 3.12 inside the Godot 4 extension): ``locale/<code>/LC_MESSAGES/
sorteio.po`` (the source, edited by people) and ``sorteio.mo`` (compiled from it by
``scripts/i18n.py``, committed and shipped as package data; ``tests/test_i18n.py`` proves the two
agree and that every message of the code is translated in both). Message ids are the English
sentences (README "Language / Idioma" says why), with ``str.format`` fields (``{deck}``).

Which language (``current()``), first that applies:

1. the language of the running request (``use(lang)``: a bridge session's ``lang``);
2. the process's, set once by ``set_language`` (the CLI's ``--lang``);
3. the environment, read once: ``SORTEIO_LANG``, then the system locale (``LANGUAGE``,
   ``LC_ALL``, ``LC_MESSAGES``, ``LANG``, in gettext's order), the first that names a
   language we have (``pt``/``pt_BR.UTF-8`` -> ``pt-BR``, ``en_US`` -> ``en``);
4. ``pt-BR``.

A ``SORTEIO_LANG`` that names no language we have is an error (``LanguageError``), never a
silent fallback; an unknown system locale (``C.UTF-8``, ``fr_FR``) just falls through.
"""

import contextlib
import gettext
import os
from contextvars import ContextVar
from pathlib import Path
from typing import Dict, Iterator, Mapping, Optional

from .errors import SorteioError

LANGUAGES = ("pt-BR", "en")
DEFAULT = "pt-BR"
DOMAIN = "sorteio"
LOCALE_DIR = Path(__file__).resolve().parent / "locale"
ENV = "SORTEIO_LANG"
LOCALE_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
# gettext's folder names (POSIX locale codes) for our BCP 47 tags.
CODES = {"pt-BR": "pt_BR", "en": "en"}

_request = ContextVar("sorteio_language", default=None)  # type: ContextVar[Optional[str]]
_process: Dict[str, str] = {}
_catalogs: Dict[str, gettext.NullTranslations] = {}


class LanguageError(SorteioError):
    """A language tag that names no language of sorteio (``--lang``, ``SORTEIO_LANG``, a
    bridge request's ``lang``)."""


def normalize(tag: object) -> Optional[str]:
    """``pt-BR``/``en`` for a language tag or POSIX locale (``pt``, ``pt_BR.UTF-8``, ``PT-br``,
    ``en_US@euro``, ``en-GB``); None for anything else (``C``, ``fr_FR``, ``""``, a non-str)."""
    if not isinstance(tag, str):
        return None
    base = tag.split(".")[0].split("@")[0].replace("_", "-").strip().lower()
    primary = base.split("-")[0]
    if primary == "pt":
        return "pt-BR"
    if primary == "en":
        return "en"
    return None


def parse(tag: object, source: str) -> str:
    """``normalize(tag)``, or ``LanguageError`` naming ``source`` (``SORTEIO_LANG``, ``lang``)."""
    lang = normalize(tag)
    if lang is None:
        raise LanguageError(_("{source}: {value!r} is not a language of sorteio (choose one "
                              "of: {choices})").format(source=source, value=tag,
                                                       choices=", ".join(LANGUAGES)))
    return lang


def from_environment(environ: Optional[Mapping[str, str]] = None) -> str:
    """The language the environment asks for (steps 3-4 of ``current``); raises
    ``LanguageError`` for a ``SORTEIO_LANG`` we do not have."""
    environ = os.environ if environ is None else environ
    chosen = environ.get(ENV, "")
    if chosen.strip():
        with use(DEFAULT):  # the error must not ask the environment again
            return parse(chosen, ENV)
    for var in LOCALE_VARS:
        for tag in environ.get(var, "").split(":"):  # LANGUAGE is a list: pt_BR:en
            lang = normalize(tag)
            if lang is not None:
                return lang
    return DEFAULT


def set_language(lang: Optional[str]) -> None:
    """Set the process's language (``pt-BR`` or ``en``; None: from the environment again)."""
    _process.clear()
    if lang is not None:
        _process["lang"] = parse(lang, "lang")


def current() -> str:
    """The language of what is being said now: ``pt-BR`` or ``en`` (see the module)."""
    lang = _request.get()
    if lang is not None:
        return lang
    if "lang" not in _process:
        try:
            _process["lang"] = from_environment()
        except LanguageError:
            _process["lang"] = DEFAULT  # what the error itself, and what follows, is said in
            raise
    return _process["lang"]


@contextlib.contextmanager
def use(lang: str) -> Iterator[str]:
    """Speak ``lang`` (a tag ``parse`` accepts) inside the block, in this thread or task only
    (a bridge session's requests; other sessions keep theirs)."""
    token = _request.set(parse(lang, "lang"))
    try:
        yield _request.get()  # type: ignore[misc]
    finally:
        _request.reset(token)


def catalog(lang: str) -> gettext.NullTranslations:
    """The compiled catalog of ``lang`` (cached). A catalog missing from the install falls back
    to the English message ids rather than breaking a game; tests/test_i18n.py keeps it there."""
    if lang not in _catalogs:
        _catalogs[lang] = gettext.translation(DOMAIN, str(LOCALE_DIR), languages=[CODES[lang]],
                                              fallback=True)
    return _catalogs[lang]


def _(message: str) -> str:
    """``message`` (an English message id) in the current language."""
    return catalog(current()).gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural of a message for ``n``, in the current language."""
    return catalog(current()).ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a message for the catalogs without translating it (module-level constants are
    translated with ``_`` where they are shown, in the language of that moment)."""
    return message


def install_for_click() -> None:
    """Point the standard library's global gettext (what click's own usage errors and help
    headings go through, and argparse's for the socket server's command line) at our catalog in
    the process's language: command lines only, one language per process."""
    gettext.bindtextdomain(DOMAIN, str(LOCALE_DIR))
    gettext.textdomain(DOMAIN)
    os.environ["LANGUAGE"] = CODES[current()]
