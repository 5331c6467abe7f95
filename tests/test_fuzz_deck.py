"""Deck fuzzer (issue 10 "Done when"): structure-aware mutations of the default deck, run through
the CLI in this process, with a fixed seed and a bounded budget.

Every mutant is the shipped ``padrao`` deck with one to three mutations: a value of another type,
a missing or unknown field, unicode (lone surrogates, NUL, right-to-left, combining marks,
emoji), huge or out-of-range numbers (beyond CPython's 4,300-digit limit too, ``1e400``,
``NaN``), duplicate keys, broken references and duplicate ids, and rich markup (``[/]``,
``[bold]``, ``:smile:``) in ids and text. For each one: no traceback; a rejected deck exits 2 and
every error row names the file and the field (and the card, for a problem inside a card); an
accepted deck exits 0, and ``play`` and ``lint`` run on it without a traceback.

Why a seeded ``random.Random`` and not hypothesis: the mutants are edits of one large real
document (a 101-card deck) at paths picked from the document itself, and the budget must be an
exact count of mutants that takes seconds. A seeded generator gives exactly ``BUDGET`` mutants,
the same on every run and machine, each reproducible from its index alone
(``mutant(SEED, i)``); the mutation list printed on failure says what broke, which stands in for
hypothesis' shrinking here. The property tests of the rules keep using hypothesis.
"""

import json
import random
import re
import sys
from typing import Any, List, Tuple

import pytest

from sorteio import cli
from sorteio.loader import BUILTIN_DECKS

SEED = 20261201
BUDGET = 300  # mutants; about 10 s on one core

BASE = json.loads(BUILTIN_DECKS["padrao"].read_text(encoding="utf-8"))

STRANGE_TEXT = [
    "\ud800", "a\udfffb", "\x00", "\u202e\u05e9\u05dc\u05d5\u05dd", "e\u0301\u0301\u0301",
    "\U0001f600\U0001f525", "[/]", "[bold]x", "[red]y[/red]", "x[/]y", ":smile:", "[link=a]b",
    "\\[/]", " ", "", "a" * 5000, "\n\t", "Saúde", "%s{0}", "<b>x</b>",
]
HUGE = [10**30, -10**30, 101, -101, 0, -1, 5, 9, 1000, 2**63, 1e400, float("nan"), 1.5, -0.0]


class Raw:
    """A number written as is into the JSON text (too long for ``int`` to print, or a literal
    like ``NaN``)."""

    def __init__(self, text: str) -> None:
        self.text = text


class Pairs(list):
    """A JSON object as a list of pairs, so a key can appear twice."""


def dumps(value: Any) -> str:
    if isinstance(value, Raw):
        return value.text
    if isinstance(value, Pairs):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value) + "}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{json.dumps(k)}: {dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(dumps(v) for v in value) + "]"
    return json.dumps(value)  # ensure_ascii: lone surrogates travel as \ud800 escapes


def _paths(node: Any, here: Tuple = ()) -> List[Tuple]:
    out = [here]
    if isinstance(node, dict):
        for key, value in node.items():
            out.extend(_paths(value, (*here, key)))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out.extend(_paths(value, (*here, i)))
    return out


def _get(doc: Any, path: Tuple) -> Any:
    for part in path:
        doc = doc[part]
    return doc


def _other_value(rng: random.Random, value: Any) -> Any:
    choices = [rng.randint(-3, 300), rng.choice(STRANGE_TEXT), [], {}, None, True,
               rng.random() * 100, [rng.randint(0, 9)], {"x": 1}, "55"]
    return rng.choice([c for c in choices if type(c) is not type(value)] or choices)


def _mutate(rng: random.Random, doc: dict) -> str:
    """Apply one mutation to ``doc`` (in place, or by returning raw JSON). Returns its name."""
    paths = [p for p in _paths(doc) if p]
    path = rng.choice(paths)
    parent, key = _get(doc, path[:-1]), path[-1]
    kind = rng.choice(["type", "missing", "unknown", "unicode", "unicode-key", "number",
                       "duplicate-key", "reference", "duplicate-id", "markup-id", "huge-text"])
    if kind == "type":
        parent[key] = _other_value(rng, parent[key])
    elif kind == "missing" and isinstance(parent, dict):
        del parent[key]
    elif kind == "missing":
        parent.pop(key)
    elif kind == "unknown":
        target = _get(doc, path) if isinstance(_get(doc, path), dict) else doc
        target[rng.choice(["cor", "peso", "ano", "Id", "opcao"])] = 1
    elif kind == "unicode":
        parent[key] = rng.choice(STRANGE_TEXT)
    elif kind == "unicode-key":
        dicts = [p for p in _paths(doc) if isinstance(_get(doc, p), dict) and _get(doc, p)]
        target = _get(doc, rng.choice(dicts))
        old = rng.choice(list(target))
        target[rng.choice(STRANGE_TEXT) + old[:2]] = target.pop(old)
    elif kind == "number":
        ints = [p for p in paths if isinstance(_get(doc, p), int)
                and not isinstance(_get(doc, p), bool)]
        where = rng.choice(ints)
        value = rng.choice([*HUGE, Raw("9" * rng.choice([4301, 5000, 20000])),
                            Raw("-" + "1" * 4400), Raw("NaN"), Raw("Infinity"), Raw("1e400")])
        _get(doc, where[:-1])[where[-1]] = value
    elif kind == "duplicate-key":
        dicts = [p for p in _paths(doc) if isinstance(_get(doc, p), dict) and _get(doc, p)]
        where = rng.choice(dicts)
        target = _get(doc, where)
        pairs = Pairs(target.items())
        k, v = rng.choice(pairs)
        pairs.append((k, v if rng.random() < 0.5 else _other_value(rng, v)))
        if where:
            _get(doc, where[:-1])[where[-1]] = pairs
        else:
            return "duplicate-top-key:" + dumps(pairs)
    elif kind == "reference":
        card = rng.choice(doc["cartas"]) if isinstance(doc.get("cartas"), list) else None
        if isinstance(card, dict):
            change = rng.choice([{"tipo": "ator"}, {"ator": "marcianos"},
                                 {"tipo": "ator", "ator": "banqueiros", "funcao": "danca"},
                                 {"funcao": "ataque"}, {"modo": "[bold]novo"}])
            card.update(change)
    elif kind == "duplicate-id":
        for field in ("cartas", "medidores", "atores", "niveis"):
            items = doc.get(field)
            if isinstance(items, list) and len(items) > 1 and all(
                    isinstance(i, dict) and "id" in i for i in items[:2]):
                items[1]["id"] = items[0]["id"]
                break
    elif kind == "markup-id":  # legal ids and text that look like rich markup
        cards = doc.get("cartas")
        if isinstance(cards, list) and cards and isinstance(cards[0], dict):
            cards[0]["id"] = rng.choice(["[/]", "[bold]c", "x[/]", ":smile:", "[red]"])
            cards[0]["titulo"] = "[/]" + str(cards[0].get("titulo"))
    elif kind == "huge-text":
        parent[key] = "[/]" * 20000
    return f"{kind} at {'.'.join(map(str, path))}"


def mutant(seed: int, index: int) -> Tuple[str, List[str]]:
    """The JSON text of mutant ``index`` and what was done to it."""
    rng = random.Random(f"{seed}-{index}")
    doc = json.loads(json.dumps(BASE))
    done = []
    for _ in range(rng.choice([1, 1, 2, 3])):
        what = _mutate(rng, doc)
        if what.startswith("duplicate-top-key:"):
            return what.split(":", 1)[1], [*done, "duplicate top-level key"]
        done.append(what)
    return dumps(doc), done


def run_cli(capsys, *args: str) -> Tuple[int, str, str]:
    """``sorteio ARGS`` in this process, as the entry point runs it; a traceback fails here."""
    argv = sys.argv
    sys.argv = ["sorteio", *args]
    try:
        cli.main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.argv = argv
    captured = capsys.readouterr()
    return code, captured.out, captured.err


CARD_FIELD = re.compile(r"^cartas\.(\d+)(\.|$)")


def _check_rejected(path: str, report: dict, stderr: str, what: List[str]) -> None:
    assert report["valid"] is False and report["errors"], what
    for row in report["errors"]:
        assert row["file"] == path and row["field"] and row["message"], (row, what)
        if CARD_FIELD.match(row["field"]):
            assert row["card_id"], (row, what)
    lines = stderr.splitlines()
    assert len(lines) == len(report["errors"]), (stderr, what)
    assert all(line.startswith(f"error: {path}: ") for line in lines), (stderr, what)


def _mutant_files(tmp_path):
    """``(index, path, what)`` for each mutant, written to a path that carries markup too."""
    folder = tmp_path / "decks[red]" / "[/]"
    folder.mkdir(parents=True)
    path = str(folder / "[bold]mutante.json")
    for index in range(BUDGET):
        text, what = mutant(SEED, index)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        yield index, path, [f"mutant {index}", *what]


def test_the_deck_fuzzer_validate_finds_no_traceback_and_every_error_names_file_and_field(
        tmp_path, capsys):
    tally = {"rejected": 0, "accepted": 0}
    for _, path, what in _mutant_files(tmp_path):
        code, out, err = run_cli(capsys, "validate", path, "--json")
        report = json.loads(out)
        text_code, _, text_err = run_cli(capsys, "validate", path)
        assert "Traceback" not in err + text_err, what
        if report["valid"]:
            assert (code, text_code) == (0, 0), what
            tally["accepted"] += 1
        else:
            assert (code, text_code) == (2, 2), what
            _check_rejected(path, report, text_err, what)
            tally["rejected"] += 1
    # The budget must reach both sides: many broken decks, and legal ones that look strange.
    assert tally["rejected"] >= BUDGET // 2 and tally["accepted"] >= 10, tally


def test_the_deck_fuzzer_plays_and_lints_every_accepted_mutant(tmp_path, capsys):
    accepted = 0
    for index, path, what in _mutant_files(tmp_path):
        if run_cli(capsys, "validate", path)[0] != 0:
            continue
        accepted += 1
        for args in (["play", "--deck", path, "--seed", str(index)], ["lint", path]):
            code, _, err = run_cli(capsys, *args)
            assert code == 0 and "Traceback" not in err, (args, err, what)
    assert accepted >= 10


@pytest.mark.parametrize("index", range(8))
def test_mutants_are_the_same_on_every_run(index):
    assert mutant(SEED, index) == mutant(SEED, index)
