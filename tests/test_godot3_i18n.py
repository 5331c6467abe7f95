"""One language per run on the Godot 3 line (issue 15 "One language"): the addon's strings (the
Sorteio panel, the deck importer's Output lines, its Inspector summary, the FileSystem dock's
tooltips) and the demo's go through gettext catalogs (godot3/addons/sorteio/i18n/*.po, read by
sorteio_language.gd's t(); godot3/demo_project/i18n/*.po, read by the demo's Texts.t), in the
language the setting `sorteio/language` chose (auto = SORTEIO_LANG, else the locale), the one
Python's messages come in too. Where a Godot 3 script has a Godot 4 twin, both catalogs use the
same msgids (godot3/addons/sorteio/i18n/README.md). On Godot 3.2.3 and 3.6."""

import json
import re
from pathlib import Path

import pytest

from engines import engine
from sorteio.bridge.handler import RequestHandler
from test_editor import (
    GODOT36_EDITOR_NOISE,
    editor_env,
    make_project,
    panel_lines,
    run_editor,
    unexpected_errors,
)
from test_godot_engine import ROOT, godot_env, run_script, scratch_demo

pytestmark = pytest.mark.godot

ADDON = ROOT / "godot3" / "addons" / "sorteio"
DEMO = ROOT / "godot3" / "demo_project"
# Each Godot 3 folder, its catalogs, and the Godot 4 catalogs of its twin scripts.
CATALOGS = {ADDON: (ADDON / "i18n", ROOT / "addons" / "sorteio" / "i18n"),
            DEMO: (DEMO / "i18n", ROOT / "demo_project" / "i18n")}
# a GDScript string literal: double-quoted, or single-quoted (gdformat writes one holding a '"')
LITERAL = r'(?:"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\')'
# Language.t("...") / Texts.t("...") (t("...") inside texts.gd), one literal or literals joined
# by + (gdformat may put those in parentheses)
CALL = re.compile(rf'(?<![\w.])(?:Language\.|Texts\.)?t\('
                  rf'\s*\(?\s*((?:{LITERAL}\s*\+?\s*)+)\)?\s*\)')
# helpers whose literal arguments are msgids: the panel's _words([...]) / _years("..."), the
# demo's Texts.count(n, "singular", "plural")
LISTS = re.compile(r'(?:_words\(\[|_years\(|Texts\.count\([^,]+,)([^\]\)]*)')
# a line marked "# i18n": its last literal is a msgid (a constant, a tab's node name)
MARKED = re.compile(rf'^.*?({LITERAL})[^"\n]*#\s*i18n\s*$', re.M)
ENTRY = re.compile(r'^msgid ("(?:[^"\\]|\\.)*")\nmsgstr ("(?:[^"\\]|\\.)*")$', re.M)
PLACEHOLDER = r"%[-+.\d]*[sdf]"


def unquote(literal: str) -> str:
    """The text of a GDScript string literal (its escapes are JSON's)."""
    if literal.startswith("'"):
        literal = '"' + literal[1:-1].replace("\\'", "'").replace('"', '\\"') + '"'
    return json.loads(literal)


def catalog(folder: Path, language: str) -> dict:
    """FOLDER/LANGUAGE.po as {msgid: msgstr} (the header entry left out)."""
    text = (folder / f"{language}.po").read_text(encoding="utf-8")
    entries = {json.loads(k): json.loads(v) for k, v in ENTRY.findall(text)}
    entries.pop("", None)
    return entries


def used_msgids(folder: Path) -> dict:
    """Every msgid the GDScript under `folder` uses (the demo without the addon it links):
    {msgid: file}."""
    found = {}
    for path in folder.rglob("*.gd"):
        if folder == DEMO and "addons" in path.relative_to(folder).parts:
            continue
        text = path.read_text(encoding="utf-8")
        for argument in CALL.findall(text):
            msgid = "".join(unquote(part) for part in re.findall(LITERAL, argument))
            found[msgid] = path.relative_to(ROOT)
        for argument in LISTS.findall(text):
            for literal in re.findall(LITERAL, argument):
                found[unquote(literal)] = path.relative_to(ROOT)
        for literal in MARKED.findall(text):
            found[unquote(literal)] = path.relative_to(ROOT)
    return found


@pytest.mark.parametrize("folder", list(CATALOGS), ids=["addon", "demo"])
def test_every_msgid_the_gdscript_uses_is_in_both_catalogs_and_translated(folder):
    used = used_msgids(folder)
    assert len(used) > 30, used  # the regexes find the calls (a broken one would find none)
    own, _twin = CATALOGS[folder]
    for language in ("pt_BR", "en"):
        entries = catalog(own, language)
        missing = {m: str(f) for m, f in used.items() if m not in entries}
        assert not missing, f"{language}.po lacks {missing}"
        unused = sorted(set(entries) - set(used))
        assert not unused, f"{language}.po has entries no script uses: {unused}"
        assert not [m for m, text in entries.items() if not text], f"{language}.po: empty"
        for msgid, text in entries.items():  # Godot's % fails at run time on a changed one
            assert re.findall(PLACEHOLDER, msgid) == re.findall(PLACEHOLDER, text), (
                f"{language}.po: {msgid!r} -> {text!r} changes the placeholders")
    assert all(text == msgid for msgid, text in catalog(own, "pt_BR").items())


@pytest.mark.parametrize("folder", list(CATALOGS), ids=["addon", "demo"])
def test_a_text_both_lines_show_is_one_msgid_translated_alike(folder):
    """The twins (a Godot 3 script and its Godot 4 one) share msgids: a msgid in both lines'
    catalogs reads the same in English on both, and the Godot 3 line has many of them."""
    own, twin = CATALOGS[folder]
    ours, theirs = catalog(own, "en"), catalog(twin, "en")
    shared = set(ours) & set(theirs)
    assert len(shared) >= 8, shared
    differ = {m: (ours[m], theirs[m]) for m in shared if ours[m] != theirs[m]}
    assert not differ, differ


def python_message(lang: str) -> str:
    """Python's own message for a draw before any match, in `lang`."""
    reply = json.loads(RequestHandler().handle_json(
        json.dumps({"id": 1, "method": "draw", "params": {}, "lang": lang})))
    return reply["error"]["message"]


@pytest.fixture(scope="module")
def auto_demo(tmp_path_factory):
    """A copy of the demo whose sorteio/language is "auto" (the demo itself pins pt_BR)."""
    game = scratch_demo(tmp_path_factory.mktemp("g3i18n") / "demo")
    settings = (game / "project.godot").read_text(encoding="utf-8")
    assert 'language="pt_BR"' in settings
    (game / "project.godot").write_text(settings.replace('language="pt_BR"', 'language="auto"'),
                                        encoding="utf-8")
    return game


SAYS = {"pt_BR": {"validate": "Validar", "meters": "Medidores",
                  "year": "Ano 1 de 4: 1 obrigatória"},
        "en": {"validate": "Validate", "meters": "Meters", "year": "Year 1 of 4: 1 mandatory"}}


@pytest.mark.parametrize("godot", ["godot3.2", "godot3.6"])
@pytest.mark.parametrize("lang", ["pt_BR", "en"])
def test_a_run_speaks_one_language_addon_demo_and_python(tmp_path, auto_demo, godot, lang):
    no_match = python_message(lang.replace("_", "-"))
    assert no_match != python_message("en" if lang == "pt_BR" else "pt-BR")
    env = godot_env(tmp_path, auto_demo)
    env["SORTEIO_LANG"] = lang.replace("_", "-")
    binary = "godot3-server" if godot == "godot3.2" else engine("godot3.6-server")
    allowed = () if godot == "godot3.2" else (
        (r"ERROR: Failed to retrieve non-existent singleton 'VisualScriptEditor'", "3.6"),)
    said = SAYS[lang]
    log = run_script(tmp_path, "test_i18n.gd", f"--lang={lang}", f"--validate={said['validate']}",
                     f"--meters={said['meters']}", f"--year={said['year']}",
                     f"--no-match={no_match}", project=auto_demo, env=env, binary=binary,
                     allowed=allowed, name=f"i18n-{lang}-{godot}")
    for check in ("the run's language", "C and POSIX read as English", "the addon's string",
                  "the panel's Validate button",
                  "the demo's header in the language", "Python's message in the language"):
        assert f"CHECK ok {check}" in log, log[-3000:]


@pytest.mark.parametrize("godot", ["godot3.2", "godot3.6"])
def test_the_editor_speaks_english_when_the_run_is_english(tmp_path, godot):
    """The Sorteio panel's buttons and tabs, the importer's Output lines, the Inspector's
    summary and the FileSystem dock's tooltip in English (test_editor.py has them in pt-BR)."""
    project = make_project(tmp_path)
    env = editor_env(tmp_path)
    env["SORTEIO_LANG"] = "en"
    binary, allowed = "godot3-server", ()
    if godot == "godot3.6":
        binary, allowed = engine("godot3.6-server"), GODOT36_EDITOR_NOISE
    log = run_editor(tmp_path, project, ["--", "--import-only"], binary=binary, env=env)
    assert "GODOT-TEST passed" in log, log[-3000:]
    assert not unexpected_errors(log, allowed), unexpected_errors(log, allowed)
    panel = panel_lines(log)
    texts = panel["panel_texts"]["data"]
    assert {"Validate", "Coverage", "Preview", "Simulate"} <= set(texts["buttons"]), texts
    assert texts["tabs"] == ["Problems", "Coverage", "Preview", "Simulation"], texts
    summary = panel["inspector"]["data"]["summary"].splitlines()
    assert summary[0] == "INVALID deck: res://decks/quebrado.json does not validate"
    assert summary[1].startswith("error: card '")
    output = [row.strip() for row in panel["output"]["data"]]
    assert ("sorteio: res://decks/quebrado.json does not validate: 4 problem(s); the Sorteio "
            "panel lists them (Validate)") in output, output
    assert [row for row in output if row.startswith("sorteio warning: res://decks/aviso.json: "
                                                    "card '")], output
    assert panel["dock"]["data"]["res://decks/quebrado.json"] == (
        "res://decks/quebrado.json does not validate: 4 problem(s); the Output and the Sorteio "
        "panel list them")
