"""One language per run on the Godot 4 side (issue 15 "One language"): the addon's strings go
through its gettext catalogs (addons/sorteio/i18n/*.po, read by SorteioI18n into a translation
domain of its own), and the language the project setting `sorteio/language` (auto / pt_BR / en;
auto = SORTEIO_LANG, else the editor's or the OS locale) chose goes to Python in each request's
`lang`, so a rule's error message comes in the same language (tests/godot4/test_i18n.gd)."""

import json
import re
from pathlib import Path

import pytest

from godot4_harness import ROOT, godot_env, make_project, run_script
from sorteio.bridge.handler import RequestHandler

pytestmark = pytest.mark.godot

I18N = ROOT / "addons" / "sorteio" / "i18n"
GDSCRIPT = [ROOT / "addons" / "sorteio", ROOT / "demo_project"]
LITERAL = r'"(?:[^"\\]|\\.)*"'
# SorteioI18n.t("..."), its argument one literal or literals joined by + (gdformat may put
# those in parentheses)
CALL = re.compile(rf'SorteioI18n\.t\(\s*\(?\s*((?:{LITERAL}\s*\+?\s*)+)\)?\s*\)')
# a constant's line marked "# i18n": its last literal is a msgid, shown through SorteioI18n.t
MARKED = re.compile(rf'^.*?({LITERAL})[^"\n]*#\s*i18n\s*$', re.M)
ENTRY = re.compile(r'^msgid ("(?:[^"\\]|\\.)*")\nmsgstr ("(?:[^"\\]|\\.)*")$', re.M)
# The button the panel shows first, as each language writes it (not read from the catalogs).
VALIDATE = {"pt_BR": "Validar", "en": "Validate"}


def catalog(language: str) -> dict:
    """addons/sorteio/i18n/LANGUAGE.po as {msgid: msgstr} (the header entry left out)."""
    text = (I18N / f"{language}.po").read_text(encoding="utf-8")
    entries = {json.loads(k): json.loads(v) for k, v in ENTRY.findall(text)}
    entries.pop("", None)
    return entries


def used_msgids() -> dict:
    """Every msgid of the addon's and the demo's GDScript: SorteioI18n.t("...") literals (joined
    when the argument is "..." + "...") and constants' lines marked `# i18n`: {msgid: file}."""
    found = {}
    for folder in GDSCRIPT:
        for path in folder.rglob("*.gd"):
            if "addons/sorteio" in str(path) and folder.name == "demo_project":
                continue  # the demo links the addon: read it once
            text = path.read_text(encoding="utf-8")
            for argument in CALL.findall(text):
                msgid = "".join(json.loads(part) for part in re.findall(LITERAL, argument))
                found[msgid] = path.relative_to(ROOT)
            for literal in MARKED.findall(text):
                found[json.loads(literal)] = path.relative_to(ROOT)
    return found


def test_every_msgid_the_gdscript_uses_is_in_both_catalogs_and_translated():
    used = used_msgids()
    assert len(used) > 40, used  # the regex finds the calls (a broken one would find none)
    for language in ("pt_BR", "en"):
        entries = catalog(language)
        missing = {m: str(f) for m, f in used.items() if m not in entries}
        assert not missing, f"{language}.po lacks {missing}"
        empty = [m for m, text in entries.items() if not text]
        assert not empty, f"{language}.po has untranslated entries {empty}"
        # a format string keeps its placeholders in order (Godot's % would fail at run time)
        for msgid, text in entries.items():
            assert re.findall(r"%[-+.\d]*[sdf]", msgid) == re.findall(r"%[-+.\d]*[sdf]", text), (
                f"{language}.po: {msgid!r} -> {text!r} changes the placeholders")
    assert set(catalog("pt_BR")) == set(catalog("en"))


def python_message(lang: str) -> str:
    """Python's own message for a draw before any match, in `lang` (the expected text)."""
    reply = json.loads(RequestHandler().handle_json(
        json.dumps({"id": 1, "method": "draw", "params": {}, "lang": lang})))
    return reply["error"]["message"]


@pytest.mark.parametrize(
    "setting, env_lang, expected",
    [
        ("pt_BR", "en", "pt_BR"),  # the project setting wins over SORTEIO_LANG
        ("en", "pt-BR", "en"),
        ("auto", "en", "en"),  # auto: SORTEIO_LANG, the variable the Python side reads
        ("auto", "pt_BR.UTF-8", "pt_BR"),
    ],
)
def test_a_run_speaks_one_language_addon_and_python(tmp_path, setting, env_lang, expected):
    no_match = python_message(expected.replace("_", "-"))
    assert no_match != python_message("en" if expected == "pt_BR" else "pt-BR")
    project = make_project(tmp_path / "game",
                           settings={"sorteio": {"language": json.dumps(setting)}})
    home = tmp_path / "home"
    run = run_script(project, "test_i18n.gd", f"--lang={expected}",
                     f"--validate={VALIDATE[expected]}", f"--no-match={no_match}", home=home,
                     env=godot_env(home, SORTEIO_LANG=env_lang))
    run.passed("the run's language", "the protocol's lang",
               "the addon's own string in the language", "Python's message in the language")


def test_the_language_setting_is_documented():
    readme = (ROOT / "addons" / "sorteio" / "README.md").read_text(encoding="utf-8")
    assert "sorteio/language" in readme and Path(I18N / "en.po").exists()
