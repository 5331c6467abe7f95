"""The message families that were English (or Portuguese) in both languages until issue 15's
follow-up: ``--help`` texts, ``serve``'s start-up errors and the socket server's own command
line, spreadsheet problems, a corrupted save's consistency checks, the simulation kernels'
reasons, and the sweep's and per-card study's reports. Each is checked in both languages, and
the ``--help`` of every command has no English left in a pt-BR run."""

import functools
import re
import subprocess
import sys

import click
import pytest

from cli_run import sorteio
from sorteio import i18n
from sorteio.cli import cli
from sorteio.clihelp import help_text

LANGS = ("pt-BR", "en")


def _commands(group=cli, path=()):
    """Every command of the CLI with its words on the command line (``("sheet", "export")``)."""
    yield path, group
    for name, command in getattr(group, "commands", {}).items():
        yield from _commands(command, (*path, name))


def _squeezed(text: str) -> str:
    """Text without whitespace: click wraps help at any space (and after a hyphen)."""
    return re.sub(r"\s+", "", text)


@functools.lru_cache(maxsize=None)
def _help(path, lang):
    return sorteio("--lang", lang, *path, "--help").stdout


# -- --help --------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [p for p, _ in _commands()], ids=lambda p: " ".join(p) or "cli")
def test_every_help_text_is_shown_in_the_language_of_the_run(path):
    """The command's description and each option's help come out translated in pt-BR and as
    written in English, and a pt-BR page carries none of the English ones (click reads them at
    import; ``clihelp`` translates them when the page is written)."""
    command = dict(_commands())[path]
    texts = [command.help, *(p.help for p in command.params if getattr(p, "help", None))]
    texts = [t for t in texts if t]
    assert texts, path
    pages = {lang: _squeezed(_help(path, lang)) for lang in LANGS}
    for text in texts:
        with i18n.use("pt-BR"):
            pt = help_text(text)
        with i18n.use("en"):
            en = help_text(text)
        assert pt != en, f"not translated: {text!r}"
        assert _squeezed(pt) in pages["pt-BR"] and _squeezed(en) not in pages["pt-BR"]
        assert _squeezed(en) in pages["en"]
    assert "Opções:" in _help(path, "pt-BR") and "Options:" in _help(path, "en")


def test_help_fields_are_filled_after_translating():
    from sorteio.clihelp import FIELDS

    simulate = dict(_commands())[("simulate",)]
    matches = next(p for p in simulate.params if p.name == "matches")
    for lang in LANGS:
        with i18n.use(lang):
            said = help_text(matches.help)
        assert FIELDS["max_matches"] in said and "{" not in said


def test_the_command_list_is_in_the_language_of_the_run():
    pt = sorteio("--lang", "pt-BR", "--help").stdout
    en = sorteio("--lang", "en", "--help").stdout
    assert "Joga uma partida inteira" in pt and "Play one whole match" not in pt
    assert "Play one whole match" in en and "Joga uma" not in en
    assert "idioma de todas as mensagens" in pt and "language of every message" in en


def test_a_help_id_is_put_back_after_a_page(monkeypatch):
    """Translating for a page never leaves a translated text on the shared command objects."""
    play = dict(_commands())[("play",)]
    before = [play.help, *(p.help for p in play.params)]
    with i18n.use("pt-BR"):
        play.get_help(click.Context(play, info_name="play"))
        play.get_short_help_str()
    assert [play.help, *(p.help for p in play.params)] == before


# -- serve and the socket server's own command line ----------------------------------------------

@pytest.mark.parametrize(("lang", "said"), [
    ("pt-BR", ["a ponte serve só na interface local", "--port deve ir de 0 a 65535",
               "--parent-pid deve ser um id de processo"]),
    ("en", ["the bridge serves on the loopback interface only", "--port must be from 0 to 65535",
            "--parent-pid must be a process id"]),
])
def test_serve_start_up_errors_follow_the_language(lang, said):
    from sorteio.bridge.server import BridgeError, check_options

    with i18n.use(lang):
        for args, words in zip([("0.0.0.0", 0, None, None), ("127.0.0.1", 70000, None, None),
                                ("127.0.0.1", 0, None, -3)], said):
            with pytest.raises(BridgeError, match=re.escape(words)):
                check_options(*args)


def test_serve_port_file_error_in_both_languages(tmp_path):
    from sorteio.bridge.server import BridgeError, check_port_file

    for lang, words in (("pt-BR", "não é possível gravar o arquivo de porta"),
                        ("en", "cannot write the port file")):
        with i18n.use(lang), pytest.raises(BridgeError, match=words):
            check_port_file(str(tmp_path))  # a folder


def _server(*args, lang):
    import os

    return subprocess.run([sys.executable, "-m", "sorteio.bridge.server", *args],
                          capture_output=True, text=True, encoding="utf-8", timeout=60,
                          env=dict(os.environ, SORTEIO_LANG=lang))


def test_the_socket_servers_own_help_and_errors_follow_the_language():
    """``python -m sorteio.bridge.server`` (what the frozen ``sorteio-serve`` runs): argparse's
    words and ours."""
    pt, en = _server("--help", lang="pt-BR").stdout, _server("--help", lang="en").stdout
    assert pt.startswith("uso: ") and "porta TCP; 0 escolhe uma livre" in pt
    assert "mostra esta mensagem de ajuda e sai" in pt and "usage:" not in pt
    assert en.startswith("usage: ") and "TCP port; 0 picks a free one" in en
    bad = _server("--port", "x", lang="pt-BR")
    assert bad.returncode == 2 and "erro: argumento --port: valor int inválido" in bad.stderr
    bad = _server("--host", "0.0.0.0", lang="pt-BR")
    assert bad.returncode == 2 and bad.stderr.startswith("erro: a ponte serve só")
    bad = _server("--host", "0.0.0.0", lang="en")
    assert bad.returncode == 2 and bad.stderr.startswith("error: the bridge serves")


def test_serve_listening_line_follows_the_language():
    from sorteio.bridge.server import listening_line

    with i18n.use("pt-BR"):
        assert listening_line("127.0.0.1", 5, "t", "/p") == (
            "sorteio serve: escutando em 127.0.0.1:5, token em /p (Ctrl-C para parar)")
    with i18n.use("en"):
        assert listening_line("127.0.0.1", 5, "t", None) == (
            "sorteio serve: listening on 127.0.0.1:5, token t (Ctrl-C to stop)")


# -- spreadsheets ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "said"), [
    ("pt-BR", ["a planilha deve ser uma pasta de trabalho .xlsx ou um arquivo .csv, não '.ods'",
               "o LibreOffice e o Google Sheets salvam os dois",
               "esperava uma linha de seção como [cartas]", "(linha 1)"]),
    ("en", ["the sheet must be a .xlsx workbook or a .csv file, not '.ods'",
            "LibreOffice and Google Sheets save both",
            "expected a section row such as [cartas]", "(row 1)"]),
])
def test_sheet_file_and_layout_problems_follow_the_language(tmp_path, lang, said):
    from sorteio.sheets import SheetError, read_sheet

    (tmp_path / "d.ods").write_bytes(b"x")
    csv = tmp_path / "d.csv"
    csv.write_text("id;titulo\nx;y\n", encoding="utf-8")
    with i18n.use(lang):
        with pytest.raises(SheetError) as first:
            read_sheet(tmp_path / "d.ods")
        with pytest.raises(SheetError) as second:
            read_sheet(csv)
        text = f"{first.value}\n{second.value}"
    for words in said:
        assert words in text, text


@pytest.mark.parametrize(("lang", "said"), [
    ("pt-BR", ["planilha desconhecida 'extra'", "falta a planilha 'medidores'"]),
    ("en", ["unknown sheet 'extra'", "the sheet 'medidores' is missing"]),
])
def test_sheet_names_are_checked_in_the_language_of_the_run(lang, said):
    from sorteio.sheets.layout import Reader

    reader = Reader()
    with i18n.use(lang):
        reader.read({}, ["extra"])
    text = "\n".join(i.message for i in reader.issues)
    for words in said:
        assert words in text, text


def test_sheet_export_problems_in_the_cli_follow_the_language(tmp_path):
    pt = sorteio("--lang", "pt-BR", "sheet", "export", "padrao", str(tmp_path / "x.ods"),
                 check_code=2).stderr
    en = sorteio("--lang", "en", "sheet", "export", "padrao", str(tmp_path / "x.ods"),
                 check_code=2).stderr
    assert "a planilha deve ser uma pasta de trabalho" in pt and "must be" not in pt
    assert "the spreadsheet must be a .xlsx workbook" in en


# -- a corrupted save ------------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "said"), [
    ("pt-BR", "partida salva: played: aparece duas vezes: c001 (§3.1.2)"),
    ("en", "saved match: played: listed twice: c001 (§3.1.2)"),
])
def test_save_consistency_problems_follow_the_language(lang, said):
    from sorteio.engine import Engine
    from sorteio.errors import StateError
    from sorteio.synthetic import synthetic_deck

    deck = synthetic_deck()
    saved = Engine(deck).to_state()
    saved.update(played=["c001", "c001"])
    with i18n.use(lang), pytest.raises(StateError) as caught:
        Engine.from_state(deck, saved)
    assert said in str(caught.value)


@pytest.mark.parametrize(("lang", "said"), [
    # QA: "card desconhecido" mixed an English noun into the sentence, with the wrong gender
    ("pt-BR", ["carta desconhecida: 'nada'", "meters: os valores devem ir de 0 a 100 "
                                             "(caixa = 150)"]),
    ("en", ["unknown card 'nada'", "meters: values must be 0-100 (caixa = 150)"]),
])
def test_save_problems_name_the_card_and_the_meter_in_the_language(lang, said):
    from sorteio.engine import Engine
    from sorteio.errors import StateError
    from sorteio.synthetic import synthetic_deck

    deck = synthetic_deck()
    saved = Engine(deck).to_state()
    saved.update(played=["nada"])
    saved["meters"].update(caixa=150)
    with i18n.use(lang), pytest.raises(StateError) as caught:
        Engine.from_state(deck, saved)
    for text in said:
        assert text in str(caught.value)


@pytest.mark.parametrize(("lang", "said"), [
    ("pt-BR", "slot: 3 cartas nas vagas deste turno, mas N = "),
    ("en", "slot: 3 cards in this turn's slots, but N = "),
])
def test_a_deep_save_check_with_figures_follows_the_language(lang, said):
    from sorteio.engine import Engine
    from sorteio.errors import StateError
    from sorteio.synthetic import synthetic_deck

    deck = synthetic_deck()
    saved = Engine(deck).to_state()
    saved.update(slot=3)
    with i18n.use(lang), pytest.raises(StateError) as caught:
        Engine.from_state(deck, saved)
    assert said in str(caught.value)


# -- the simulation kernels ------------------------------------------------------------------------

def test_kernel_reasons_and_errors_follow_the_language(monkeypatch):
    from sorteio.errors import SorteioError
    from sorteio.sim import ckernel, kernels

    monkeypatch.setattr(ckernel, "_ckernel", None)
    with i18n.use("pt-BR"):
        assert ckernel.unavailable_reason().startswith("não compilado nesta instalação")
        assert "não compilado" in kernels.describe("python")
    with i18n.use("en"):
        assert ckernel.unavailable_reason().startswith("not compiled in this installation")
        assert "not compiled" in kernels.describe("python")
    monkeypatch.setenv("SORTEIO_KERNEL", "c")
    for lang, words in (("pt-BR", "o kernel compilado foi pedido"),
                        ("en", "the compiled kernel was asked for")):
        with i18n.use(lang), pytest.raises(SorteioError, match=words):
            kernels.kernel_name()
    monkeypatch.setenv("SORTEIO_KERNEL", "fortran")
    for lang, words in (("pt-BR", "esperava um de"), ("en", "expected one of")):
        with i18n.use(lang), pytest.raises(SorteioError, match=words):
            kernels.kernel_name()


# -- reports ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def small_sweep():
    from sorteio.loader import load_deck
    from sorteio.sim.sweep import run_sweep

    return run_sweep(load_deck("curto"), {"teto_obrigatorias": [2, 3]}, matches=20, seed=3,
                     jobs=1)


@pytest.mark.parametrize(("lang", "said", "unsaid"), [
    ("pt-BR", ["<html lang='pt-BR'>", "varredura de balanceamento", "Cenários",
               "Vagas obrigatórias por turno", "catastrophe_pct"], "Scenarios"),
    ("en", ["<html lang='en'>", "balancing sweep", "Scenarios", "Mandatory slots per turn",
            "catastrophe_pct"], "Cenários"),
])
def test_the_sweep_report_is_in_the_language_of_the_run(small_sweep, tmp_path, lang, said,
                                                        unsaid):
    """The words follow the language; the table's columns stay sweep.csv's names."""
    pytest.importorskip("matplotlib")
    from sorteio.sim.report import write_html

    with i18n.use(lang):
        write_html(small_sweep, tmp_path / "r.html", {})
    text = (tmp_path / "r.html").read_text(encoding="utf-8")
    for words in said:
        assert words in text
    assert unsaid not in text


def _effect(**kw):
    from sorteio.sim.percard import CardEffect

    base = dict(card_id="c1", mode="m", catastrophe_pct=9.0, diff_pp=(2.0, 1.0, 3.0), meters={},
                draws_per_match=0.5, matches=400, discordant=5)
    base.update(kw)
    return CardEffect(**base)


@pytest.mark.parametrize(("kw", "pt", "en"), [
    (dict(flagged=True), "Sem esta carta a catástrofe sobe 2.00 pontos (IC 95% +1.00 a +3.00)",
     "Without this card catastrophe rises 2.00 points (95% CI +1.00 to +3.00)"),
    (dict(flagged=True, diff_pp=(-2.0, -3.0, -1.0)), "cai 2.00 pontos", "falls 2.00 points"),
    (dict(), "Não dá para distinguir o efeito desta carta do acaso",
     "This card's effect cannot be told from chance"),
    (dict(discordant=0), "Nenhum efeito visto", "No effect seen"),
    (dict(precise=False), "(Parou no limite de 400 partidas", "(Stopped at the cap of 400"),
])
def test_per_card_verdicts_follow_the_language(kw, pt, en):
    effect = _effect(**kw)
    with i18n.use("pt-BR"):
        assert pt in effect.verdict()
    with i18n.use("en"):
        assert en in effect.verdict()


def test_the_per_card_terminal_table_follows_the_language():
    text = {lang: sorteio("--lang", lang, "simulate", "--deck", "curto", "--per-card",
                          "--matches", "60", "--jobs", "1").stdout for lang in LANGS}
    assert "cartas por efeito na catástrofe" in text["pt-BR"]
    assert "cartas mudam a catástrofe além do acaso" in text["pt-BR"]
    assert "cards by effect on catastrophe" not in text["pt-BR"]
    assert "cards by effect on catastrophe" in text["en"]
    assert "cards change catastrophe beyond chance" in text["en"]
    assert "além do acaso" not in text["en"]
