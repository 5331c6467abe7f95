"""One language per run on the Godot 4 side (issue 15 "One language"): the addon's strings go
through its gettext catalogs (addons/sorteio/i18n/*.po, read by SorteioI18n into a translation
domain of its own), and the language the project setting `sorteio/language` (auto / pt_BR / en;
auto = SORTEIO_LANG, else the editor's or the OS locale) chose goes to Python in each request's
`lang`, so a rule's error message comes in the same language (tests/godot4/test_i18n.gd)."""

import json
import re
from pathlib import Path

import pytest

from godot4_harness import ROOT, godot_env, make_project, run_godot, run_script
from sorteio.bridge.handler import RequestHandler
from test_godot4_demo import demo_copy

pytestmark = pytest.mark.godot

I18N = ROOT / "addons" / "sorteio" / "i18n"
# Each line's GDScript and its catalogs: the addon's (SorteioI18n.t) and the demo's (Texts.t).
CATALOGS = {ROOT / "addons" / "sorteio": I18N,
            ROOT / "demo_project": ROOT / "demo_project" / "i18n"}
LITERAL = r'"(?:[^"\\]|\\.)*"'
# SorteioI18n.t("...") / Texts.t("...") (t("...") inside texts.gd), its argument one literal or
# literals joined by + (gdformat may put those in parentheses)
CALL = re.compile(rf'(?<![\w.])(?:SorteioI18n\.|Texts\.)?t\('
                  rf'\s*\(?\s*((?:{LITERAL}\s*\+?\s*)+)\)?\s*\)')
# a constant's line marked "# i18n": its last literal is a msgid, shown through SorteioI18n.t
MARKED = re.compile(rf'^.*?({LITERAL})[^"\n]*#\s*i18n\s*$', re.M)
ENTRY = re.compile(r'^msgid ("(?:[^"\\]|\\.)*")\nmsgstr ("(?:[^"\\]|\\.)*")$', re.M)
# The button the panel shows first, as each language writes it (not read from the catalogs).
VALIDATE = {"pt_BR": "Validar", "en": "Validate"}
CARDS = {"pt_BR": ("Cartas", "título"), "en": ("Cards", "title")}
# The start of a message the node makes in GDScript (choose_side before any match), and of the
# scripted bridge's advice after a script_mismatch.
MISUSE = {"pt_BR": "nenhuma carta espera escolha", "en": "no card awaits a choice"}
DRIFTED = {"pt_BR": ": as chamadas do jogo", "en": ": the game's calls"}


def catalog(language: str, folder: Path = I18N) -> dict:
    """FOLDER/LANGUAGE.po as {msgid: msgstr} (the header entry left out)."""
    text = (folder / f"{language}.po").read_text(encoding="utf-8")
    entries = {json.loads(k): json.loads(v) for k, v in ENTRY.findall(text)}
    entries.pop("", None)
    return entries


def used_msgids(folder: Path) -> dict:
    """Every msgid of the GDScript under `folder` (the addon, or the demo without the addon it
    links): SorteioI18n.t("...") / Texts.t("...") literals (joined when the argument is
    "..." + "...") and constants' lines marked `# i18n`: {msgid: file}."""
    found = {}
    for path in folder.rglob("*.gd"):
        if folder.name == "demo_project" and "addons" in path.relative_to(folder).parts:
            continue  # the demo links the addon: read with the addon
        text = path.read_text(encoding="utf-8")
        for argument in CALL.findall(text):
            msgid = "".join(json.loads(part) for part in re.findall(LITERAL, argument))
            found[msgid] = path.relative_to(ROOT)
        for literal in MARKED.findall(text):
            found[json.loads(literal)] = path.relative_to(ROOT)
    return found


@pytest.mark.parametrize("folder", list(CATALOGS), ids=lambda p: p.name)
def test_every_msgid_the_gdscript_uses_is_in_both_catalogs_and_translated(folder):
    used = used_msgids(folder)
    assert len(used) > 25, used  # the regex finds the calls (a broken one would find none)
    for language in ("pt_BR", "en"):
        entries = catalog(language, CATALOGS[folder])
        missing = {m: str(f) for m, f in used.items() if m not in entries}
        assert not missing, f"{language}.po lacks {missing}"
        empty = [m for m, text in entries.items() if not text]
        assert not empty, f"{language}.po has untranslated entries {empty}"
        # a format string keeps its placeholders in order (Godot's % would fail at run time)
        for msgid, text in entries.items():
            assert re.findall(r"%[-+.\d]*[sdf]", msgid) == re.findall(r"%[-+.\d]*[sdf]", text), (
                f"{language}.po: {msgid!r} -> {text!r} changes the placeholders")
    assert set(catalog("pt_BR", CATALOGS[folder])) == set(catalog("en", CATALOGS[folder]))


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
        ("auto", "LANG=C", "en"),  # no SORTEIO_LANG; C names no language: Godot's English
    ],
)
def test_a_run_speaks_one_language_addon_and_python(tmp_path, setting, env_lang, expected):
    no_match = python_message(expected.replace("_", "-"))
    assert no_match != python_message("en" if expected == "pt_BR" else "pt-BR")
    project = make_project(tmp_path / "game",
                           settings={"sorteio": {"language": json.dumps(setting)}})
    home = tmp_path / "home"
    run = run_script(project, "test_i18n.gd", f"--lang={expected}",
                     f"--validate={VALIDATE[expected]}", f"--cards={CARDS[expected][0]}",
                     f"--title={CARDS[expected][1]}", f"--no-match={no_match}",
                     f"--misuse={MISUSE[expected]}", f"--drifted={DRIFTED[expected]}", home=home,
                     env=godot_env(home, **(
                         {"SORTEIO_LANG": None, "LANG": env_lang[5:]}
                         if env_lang.startswith("LANG=") else {"SORTEIO_LANG": env_lang})))
    run.passed("the run's language", "the protocol's lang",
               "C and POSIX read as English, other languages as pt_BR",
               "the addon's own string in the language", "the card table in the language",
               "Python's message in the language", "the node's own message in the language",
               "the scripted bridge's advice in the language")


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_copy(tmp_path_factory.mktemp("demo4i18n") / "demo")


@pytest.mark.parametrize("lang, why, meters", [("pt_BR", "Por que esta carta: ", "Medidores"),
                                              ("en", "Why this card: ", "Meters")])
def test_the_demo_speaks_the_runs_language(demo, tmp_path, lang, why, meters):
    home = tmp_path / "home"
    run = run_godot(demo, ["-s", "res://tests/demo_language.gd", "--", f"--lang={lang}",
                           f"--why={why}", f"--meters={meters}", "--seed=7"],
                    home=home, env=godot_env(home, SORTEIO_LANG=lang))
    run.passed("the demo's language", "the game's locale follows it",
               "the card's reason heading", "the meters' heading")


def test_the_demo_match_ends_in_the_runs_language(demo, tmp_path):
    """The same match (seed 7, the autoplay's choices) in each language: the console line is
    in one language, its prefix (the demo's catalog) as its ending sentence (Python's); QA 13
    found `sorteio demo: semente 7: End of mandate...` in an English run."""
    endings = {}
    for lang, prefix, ending in (("pt-BR", "sorteio demo: semente 7:", " no ano "),
                                 ("en", "sorteio demo: seed 7:", " in year ")):
        home = tmp_path / lang
        run = run_godot(demo, ["--", "--autoplay", "--delay=0", "--quit-at-end", "--seed=7"],
                        home=home, env=godot_env(home, SORTEIO_LANG=lang))
        endings[lang] = run.lines(prefix)
        assert len(endings[lang]) == 1 and ending in endings[lang][0], run.tail()
        assert len(run.lines("sorteio demo: ")) == 1, run.tail()  # no line in the other language
    assert endings["pt-BR"] != endings["en"], endings


def test_the_language_setting_is_documented():
    readme = (ROOT / "addons" / "sorteio" / "README.md").read_text(encoding="utf-8")
    assert "sorteio/language" in readme and Path(I18N / "en.po").exists()


# -- every message a person reads goes through the translator -----------------------------------

# Text a person reads: two words joined by spaces or punctuation, a letter outside ASCII
# (Portuguese), or a capitalised word (a title, a button). A single lower-case word cannot be
# told from a Dictionary key ("cartas", "modo") and is not caught: review catches those.
USER_TEXT = re.compile(r"[A-Za-zÀ-ÿ]{2,}[ ,:;()'!?]+[A-Za-zÀ-ÿ]{2,}|[À-ÿ]|^[A-Z][a-z]+\b")
# Not text: a path, a file or setting name, a command-line flag, a format with no words.
NOT_TEXT = re.compile(r"^(?:[^ ]*[/._][^ ]*|-[-\w=]*)$")
# Names, not sentences: Godot's class and theme type names, the preset an importer offers, the
# platform a message names, the product's name.
NAMES = {"Label", "Editor", "Resource", "Default", "Linux", "Windows", "Sorteio", "Tree"}
# Literals that are read by programs, not people (file: patterns of the literal), and why.
NOT_FOR_PEOPLE = {
    # Python source run with `python -c`, and the marker its reply starts with
    "editor/editor_python.gd": [r"^import sys,base64", r"^r=H\(\)", r"^sys\.stdout",
                                r"^SORTEIO-REPLY $"],
    "bridges/socket_bridge.gd": [r"^import sys,os", r"^f=os\.", r"^sys\.excepthook",
                                 r"^os\.write", r"^from sorteio\.bridge",
                                 r"^import sys;sys\.excepthook", r"^None if issubclass"],
    # a pip command line, shown inside a translated hint as the command to type
    "bridges/socket_bridge.gd#pip": [r"^-m pip install $"],
    # the file dialogs' patterns (the names after ";" go through the translator)
    "editor/panel.gd": [r"^\*\.[\w.]+ ; (?:JSON|CSV|PNG)$", r"^\*\.sorteio\.json ; $"],
    "editor/start_picker.gd": [r"^\*\.json ; $"],
    "editor/sheet_actions.gd": [r"^\*\.csv ; CSV$", r"^\*\.xlsx ; $", r"^\.xlsx$",
                                r"^padrao$"],
}


def gdscript_literals(text: str):
    """(offset, end, value) of each string literal of GDScript `text`, comments skipped;
    StringName (&"") and NodePath (^"") literals left out."""
    i = 0
    while i < len(text):
        if text[i] == "#":
            i = text.find("\n", i) % (len(text) + 1) or len(text)
            continue
        if text[i] in "\"'":
            quote = text[i] * 3 if text.startswith(text[i] * 3, i) else text[i]
            j = i + len(quote)
            while j < len(text) and not text.startswith(quote, j):
                j += 2 if text[j] == "\\" else 1
            if text[i - 1: i] not in ("&", "^"):
                yield i, j + len(quote), text[i + len(quote): j]
            i = j + len(quote)
            continue
        i += 1


def untranslated(path: Path) -> list:
    """The user-facing literals of `path` outside SorteioI18n.t(...) and `# i18n` lines."""
    text = path.read_text(encoding="utf-8")
    translated = ([m.span() for m in CALL.finditer(text)]
                  + [m.span(1) for m in MARKED.finditer(text)])
    relative = path.relative_to(ROOT / "addons" / "sorteio").as_posix()
    allowed = [re.compile(p) for key, patterns in NOT_FOR_PEOPLE.items()
               if key.split("#")[0] == relative for p in patterns]
    found = []
    for start, end, value in gdscript_literals(text):
        if any(a <= start and end <= b for a, b in translated):
            continue
        if not USER_TEXT.search(value) or NOT_TEXT.match(value) or value in NAMES:
            continue
        if any(p.search(value) for p in allowed):
            continue
        found.append(f"{relative}:{text.count(chr(10), 0, start) + 1}: {value}")
    return found


def test_the_scan_finds_an_untranslated_message(tmp_path):
    sample = ROOT / "addons" / "sorteio" / "editor" / "panel.gd"
    text = sample.read_text(encoding="utf-8")
    assert not untranslated(sample)
    literals = [v for _s, _e, v in gdscript_literals('a = "x # y" # "no"\nb = &"id" + "Olá"')]
    assert literals == ["x # y", "Olá"]
    assert 'SorteioI18n.t("Validar")' in text  # the scan sees the calls it skips
    assert len([m for m in CALL.finditer(text)]) > 10


def test_every_message_a_person_reads_goes_through_the_translator():
    """Issue 15 "One language": the panel, the node's errors and warnings, the bridges' hints
    and the export plugin's refusals, all in the run's language (SorteioI18n.t; the error
    codes stay the same in both). The scan reads every .gd of the addon."""
    found = []
    for path in sorted((ROOT / "addons" / "sorteio").rglob("*.gd")):
        found += untranslated(path)
    assert not found, "not through SorteioI18n.t:\n" + "\n".join(found)
