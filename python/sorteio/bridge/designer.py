"""The designers' requests behind the Godot editor panel: validate, lint, preview, simulate,
spreadsheets (``sheet_export`` / ``sheet_import``)
and the card table's ``deck_table`` / ``deck_edit`` (issue 15; ``sorteio.cardtable``).

The same answers the CLI gives (``sorteio validate``, ``lint``, ``turn``, ``simulate``), as plain
JSON-safe dicts for a bridge to carry; the panel only draws them (no rule or statistic is computed
in GDScript). ``RequestHandler`` dispatches to these functions (see its docstring for the params).

A simulation is a *job* cut into chunks of matches: ``simulate_start`` checks the request and
returns at once, each ``simulate_step`` plays chunks for about ``budget_ms`` and reports
progress, the last one returns the result. So an editor that calls one step per frame never
freezes, on either bridge, without threads. Chunks are merged in match order, so the figures do
not depend on the budget or the machine's speed: match ``i`` uses engine seed
``seed * SEED_STRIDE + i``, as ``sorteio simulate`` does (GDD 06 §7).
"""

import hashlib
import itertools
import json
import os
import tempfile
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from .. import cardtable
from ..checks import deck_warnings
from ..compiled import CompiledDeck, paused_gc
from ..engine import DRAWING, ENDED, TURN_START, Engine
from ..errors import SorteioError
from ..i18n import _
from ..jsonfile import JsonFileError, loads, read_text
from ..lint import lint_deck
from ..loader import BUILTIN_DECKS, DeckError, load_deck, parse_deck, resolve_deck_path
from ..match import POLICIES, MatchObserver, Step, make_policy, play_turn
from ..results import TurnEnd, TurnStart
from ..sim.from_situation import situation_tally
from ..sim.report import sweep_json
from ..sim.sweep import (
    SEED_STRIDE,
    ScenarioResult,
    SweepError,
    SweepResult,
    build_scenarios,
    check_size,
    paired_difference,
    parse_param,
    run_chunk,
)
from ..situation import Situation, load_situation, situation_engine
from ..state import restore_state
from ..wording import (
    Names,
    card_mode_text,
    ending_text,
    mandatory_text,
    meters_text,
    midturn_text,
    reason_text,
)

DEFAULT_MATCHES = 3000  # GDD 06 §7: "3.000 partidas por cenário"
DEFAULT_BUDGET_MS = 150  # per step: one editor frame may take this long, well under any timeout
CHUNK = 50  # matches per chunk: a few ms each on the fast kernel
# The problem rows one reply carries (bytes of JSON): a bridge frame holds 1 MiB, and a deck
# of a few thousand cards in progress (no texto, placeholder options) has a row or three a card:
# 6,000 rows made the reply too big, and the panel got only "frame ... exceeds the limit" while
# the edit had been written. The rest are counted ("more_errors", "more_warnings").
MAX_PROBLEM_BYTES = 512 * 1024
MAX_JOBS = 4  # jobs kept at once (an abandoned one is dropped when a fifth starts)


class DesignerError(SorteioError):
    """A designer's request that cannot be answered (bad params, unknown job): ``code``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


def _deck_param(params: Dict[str, Any]) -> Optional[str]:
    deck = params.get("deck")
    if deck is not None and not isinstance(deck, str):
        raise DesignerError("bad_request", _("'deck' must be a path, a built-in name or null"))
    return deck or None


def _source(deck: Optional[str]) -> str:
    return str(resolve_deck_path(deck))


def _row(source: str, issue: Any, severity: str) -> Dict[str, Any]:
    return {"severity": severity, "file": source, "card_id": issue.card_id,
            "field": issue.field, "message": issue.message}


def validate(params: Dict[str, Any]) -> Dict[str, Any]:
    """``sorteio validate``: every problem of the deck at once, one row each.

    Result: ``{"file", "valid", "errors": [row], "warnings": [row], "summary", "more_errors",
    "more_warnings"}``, a row being ``{"severity": "error"|"warning", "file", "card_id" (or
    null), "field", "message"}``; ``summary`` is null for an invalid deck, else ``{"nome",
    "cards", "playable", "meters", "actors"}``; ``more_*``: rows left out so that the reply
    fits a bridge frame (``MAX_PROBLEM_BYTES``; ``sorteio validate`` lists every one). A broken
    deck is a normal answer here (``valid: false``), not an error reply.
    """
    deck_name = _deck_param(params)
    return _report(_source(deck_name), lambda: load_deck(deck_name))


def _report(source: str, load: Callable[[], Any]) -> Dict[str, Any]:
    """``validate``'s result for the deck ``load()`` returns (or the ``DeckError`` it raises),
    its rows cut to ``MAX_PROBLEM_BYTES`` (``more_errors`` / ``more_warnings``: how many
    more there are)."""
    try:
        deck = load()
    except DeckError as exc:
        errors, more = _fit([_row(exc.source, i, "error") for i in exc.issues])
        return {"file": exc.source, "valid": False, "errors": errors, "warnings": [],
                "summary": None, "more_errors": more, "more_warnings": 0}
    warnings, more = _fit([_row(source, i, "warning") for i in deck_warnings(deck)])
    return {
        "file": source,
        "valid": True,
        "errors": [],
        "warnings": warnings,
        "summary": {"nome": deck.nome, "cards": len(deck.cartas),
                    "playable": sum(c.playable for c in deck.cartas),
                    "meters": len(deck.medidores), "actors": len(deck.atores)},
        "more_errors": 0,
        "more_warnings": more,
    }


def _fit(rows: List[Dict[str, Any]]) -> Tuple[List[Dict[str, Any]], int]:
    """The first ``rows`` that fit in ``MAX_PROBLEM_BYTES`` of JSON, and how many are left."""
    size = 0
    for count, row in enumerate(rows):
        size += len(json.dumps(row, ensure_ascii=False).encode("utf-8")) + 2
        if size > MAX_PROBLEM_BYTES:
            return rows[:count], len(rows) - count
    return rows, 0


def lint(params: Dict[str, Any]) -> Dict[str, Any]:
    """``sorteio lint --json``: the coverage report (``sorteio.lint.lint_deck``) plus ``file``.
    A deck that does not validate raises ``DeckError`` (a ``deck_error`` reply)."""
    deck_name = _deck_param(params)
    return dict(lint_deck(load_deck(deck_name)), file=_source(deck_name))


# -- the card table (issue 15) ------------------------------------------------------------------


def _deck_file(params: Dict[str, Any]) -> Tuple[str, str, Any]:
    """``(path, text, data)`` of the deck file a table request names; a built-in deck is
    read-only (the package's own file) and a file whose JSON is ambiguous (duplicate keys) is
    refused, since writing it back would lose data."""
    deck = _deck_param(params)
    builtin = {os.path.realpath(p) for p in BUILTIN_DECKS.values()}
    if deck is None or deck in BUILTIN_DECKS or os.path.realpath(deck) in builtin:
        raise DesignerError("bad_request", _("the built-in decks are read-only: copy one into "
                                             "your project (e.g. res://decks/baralho.sorteio.json)"
                                             " and edit that"))
    key = _file_key(deck)
    if key is not None and _LAST_READ.get("key") == key:
        return deck, _LAST_READ["text"], _LAST_READ["data"]
    try:
        text = read_text(deck)
        data, problems = loads(text, deck)
    except JsonFileError as exc:
        raise DesignerError("deck_error", str(exc)) from None
    if problems:
        raise DesignerError("deck_error", "; ".join(
            f"{deck}: {'.'.join(str(p) for p in problem.loc) or '(file)'}: {problem.message}"
            for problem in problems) + " (fix this in a text editor first)")
    _remember(deck, text, data)
    return deck, text, data


# The deck file the table read or wrote last, parsed: paging through 2,000 rows and editing
# them re-reads nothing while the file is unchanged (same inode, size and modification time).
_LAST_READ: Dict[str, Any] = {}


def _file_key(path: str) -> Optional[Tuple[int, int, int]]:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_ino, stat.st_size, stat.st_mtime_ns)


def _remember(path: str, text: str, data: Any) -> None:
    _LAST_READ.clear()
    key = _file_key(path)
    if key is not None:
        _LAST_READ.update(key=key, text=text, data=data)


def _parse(data: Any, path: str) -> Any:
    with paused_gc():  # as load_deck: a big deck builds faster without the collector
        return parse_deck(data, path, [])  # pydantic leaves ``data`` as it is


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def deck_table(params: Dict[str, Any]) -> Dict[str, Any]:
    """The card table's rows (``sorteio.cardtable.table_rows``), also for a deck that does not
    validate. Params: ``deck`` (a file path), ``offset`` (default 0), ``limit`` (1-5000,
    default 500: a reply stays well under the bridge's 1 MiB frame). Result adds ``file`` and
    ``digest`` (of the file's text, for ``deck_edit``'s ``expect``)."""
    path, text, data = _deck_file(params)
    offset = _int(params, "offset", 0, 0, 2**31 - 1)
    limit = _int(params, "limit", 500, 1, 5000)
    try:
        rows = cardtable.table_rows(data, offset, limit)
    except cardtable.TableError as exc:
        raise DesignerError("deck_error", f"{path}: {exc}") from None
    return dict(rows, file=path, digest=_digest(text))


def deck_edit(params: Dict[str, Any]) -> Dict[str, Any]:
    """Apply the card table's ``edits`` (``sorteio.cardtable``) to the deck file, write it
    (atomically, in the file's own layout, so a diff shows only the edited lines) and validate
    it. Params: ``deck`` (a file path), ``edits`` (list), ``expect`` (optional: the ``digest``
    the panel last saw; another value means the file changed on disk and nothing is written).
    Result: ``{"file", "digest", "splices", "redo", "undo", "validation" (``validate``'s
    result), "validate_ms"}``. A bad edit is a ``bad_request`` naming the card and column."""
    path, text, data = _deck_file(params)
    expect = params.get("expect")
    if expect is not None and expect != _digest(text):
        raise DesignerError("stale", _("{path} changed on disk since the table read it; "
                                       "reload").format(path=path))
    _LAST_READ.clear()  # the edits change ``data`` in place; remembered again once written
    try:
        changes = cardtable.apply_edits(data, params.get("edits"))
    except cardtable.TableError as exc:
        raise DesignerError("bad_request", str(exc)) from None
    with open(path, "rb") as raw:
        bom = raw.read(3) == b"\xef\xbb\xbf"
    style = cardtable.FileStyle.of(("\ufeff" if bom else "") + text)
    new_text = cardtable.write_deck_text(data, style)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temp = tempfile.mkstemp(prefix=".sorteio-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(new_text)
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise
    text = new_text[1:] if bom else new_text
    _remember(path, text, data)
    started = time.perf_counter()
    # The data just written, validated as `validate` would validate the file (no re-read).
    report = _report(path, lambda: _parse(data, path))
    return dict(changes, file=path, digest=_digest(text),
                validation=report,
                validate_ms=round((time.perf_counter() - started) * 1000, 1))


# -- preview ---------------------------------------------------------------------------------


class _Collector(MatchObserver):
    """The rows of a preview: what ``sorteio turn`` prints, as data, with the same sentences
    (``sorteio.wording``, with the deck's display names)."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self.rows: List[Dict[str, Any]] = []

    def turn_started(self, turn: TurnStart) -> None:
        self.rows.append({"event": "turn_started", "year": turn.year, "mandatory": [
            dict(ob, texto=mandatory_text(self.names, ob))
            for ob in turn.to_dict()["mandatory"]]})

    def card_played(self, step: Step) -> None:
        draw, choice = step
        card = draw.card
        self.rows.append({
            "event": "card_played", "year": draw.year, "slot": draw.slot,
            "card_id": card["id"], "titulo": card["titulo"], "modo": card["modo"],
            "modo_texto": card_mode_text(self.names, card), "reason": draw.reason,
            "reason_text": reason_text(self.names, draw.reason, card),
            "option": choice.option, "option_text": card["opcoes"][choice.option]["texto"],
            "meters": dict(choice.meters),
            "meters_text": meters_text(self.names, choice.meters),
        })

    def turn_ended(self, end: TurnEnd) -> None:
        self.rows.append({"event": "turn_ended", **end.to_dict()})


def _read_state(path: str) -> Any:
    """A saved match file, read as ``sorteio turn`` reads it (``jsonfile``: a bounded regular
    file; every problem named by its path in the data)."""
    data, problems = loads(read_text(path), path)
    if problems:
        raise SorteioError("\n".join(
            f"{path}: {'.'.join(str(p) for p in problem.loc) or '(file)'}: {problem.message}"
            for problem in problems))
    return data


def _path_param(params: Dict[str, Any], name: str) -> Optional[str]:
    value = params.get(name)
    if value is not None and not isinstance(value, str):
        raise DesignerError("bad_request", _("'{name}' must be a file path or null").format(
            name=name))
    return value or None


def preview(params: Dict[str, Any]) -> Dict[str, Any]:
    """``sorteio turn``: the next turn's cards with why each came (§3.3, §3.4, §5).

    Params: ``deck`` (path, name or null); ``state``: path of a saved match (``play --save`` or
    ``Sorteio.save_state()`` as JSON), or ``situation``: path of a situation file (or a shipped
    sample's name, ``secao4``; ``sorteio.situation``), or neither for the match start; ``seed``
    (int >= 0, the draw's seed when there is no state, and the simulated player's); ``policy``
    (``random`` or ``protect``): cards after the first depend on the options chosen, so the
    preview plays them. Result: ``{"file", "from": "start"|"state"|"situation", "start_text",
    "rows": [...], "ending": text or null, "deck_update": [...]}``; ``start_text``: where a save
    made mid-turn continues (``sorteio turn``'s heading, ``Ano 2, a partir da vaga 4 de 7 ...``)
    or null; rows being ``turn_started`` (``mandatory`` with ``texto``), ``card_played``
    (``reason_text``: the CLI's sentence; ``meters_text``: the meters after the choice,
    ``Caixa 55 · Saúde 28 ...``) and ``turn_ended``; ``deck_update``: what loading a save of an
    earlier version of the deck changed (``sorteio.upgrade``). A bad situation file raises
    ``SituationError`` naming file and field.
    """
    deck_name = _deck_param(params)
    state_path = _path_param(params, "state")
    situation_path = _path_param(params, "situation")
    if state_path and situation_path:
        raise DesignerError("bad_request", _("give 'state' or 'situation', not both"))
    seed = _int(params, "seed", 0, 0, 2**31 - 1)
    policy = _policy(params)
    notes: List[str] = []
    deck = load_deck(deck_name)
    if state_path:
        data = _read_state(state_path)
        if isinstance(data, dict) and isinstance(data.get("engine"), dict):
            data = data["engine"]  # the Godot node's wrapper {"format", "deck", "seed", "engine"}
        engine = Engine(deck)
        notes = restore_state(engine, data)
        if engine.phase == ENDED:
            raise SorteioError(_("{path}: the match has already ended").format(path=state_path))
    elif situation_path:
        engine = situation_engine(deck, load_situation(situation_path, deck), seed)
    else:
        engine = Engine(deck, seed)
    chooser = make_policy(policy, seed)
    rows = _Collector(Names.of(deck))
    start_text = None
    if state_path and engine.phase != TURN_START:
        start_text = midturn_text(engine.year, engine.slot, engine.index.n_slots,
                                  engine.current is not None)
    if engine.current is not None:  # saved with a card on screen: the player answers it first
        rows.card_played(Step(engine.current, engine.choose(chooser(engine, engine.current))))
    shown = play_turn(engine, chooser, rows) if engine.phase == DRAWING else []
    if not shown and engine.phase == TURN_START:
        rows.turn_started(engine.start_turn())
        play_turn(engine, chooser, rows)
    origin = "state" if state_path else "situation" if situation_path else "start"
    return {"file": _source(deck_name), "from": origin, "start_text": start_text,
            "rows": rows.rows,
            "ending": (ending_text(rows.names, engine.ending.to_dict())
                       if engine.ending is not None else None),
            "deck_update": notes}


# -- simulate --------------------------------------------------------------------------------


def _int(params: Dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = params.get(name)
    if value is None:
        return default
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # Godot's JSON sends 3000.0
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise DesignerError("bad_request", _("'{name}' must be an integer from {low} to "
                                             "{high}").format(name=name, low=low, high=high))
    return value


def _policy(params: Dict[str, Any]) -> str:
    policy = params.get("policy") or "random"
    if policy not in POLICIES:
        raise DesignerError("bad_request",
                            _("'policy' must be one of: {choices} (not {policy!r})").format(
                                choices=", ".join(POLICIES), policy=policy))
    return policy


class SimulationJob:
    """One ``sorteio simulate`` run played a chunk at a time (see the module docstring)."""

    def __init__(self, deck: Any, grid: Dict[str, List[int]], matches: int, seed: int,
                 policy: str, situation: Optional[Situation] = None) -> None:
        self.deck, self.grid, self.matches = deck, grid, matches
        self.seed, self.policy = seed, policy
        self.situation = situation  # matches start there, played by the oracle
        self.scenarios = build_scenarios(deck, grid)
        check_size(len(self.scenarios), matches)
        self.total = len(self.scenarios) * matches
        self.done = 0
        self._deck_json = deck.model_dump_json()
        self._work = iter([(sc, start, min(CHUNK, matches - start))
                           for sc in self.scenarios for start in range(0, matches, CHUNK)])
        self._tallies: Dict[int, Any] = {}
        self._result: Optional[Dict[str, Any]] = None

    @property
    def finished(self) -> bool:
        return self.done >= self.total

    def step(self, budget_ms: int) -> None:
        """Play chunks, in match order, until ``budget_ms`` has passed (at least one chunk)."""
        deadline = time.perf_counter() + budget_ms / 1000
        for sc, start, count in self._work:
            if self.situation is not None:
                base = self.seed * SEED_STRIDE + start
                tally = situation_tally(self.deck, self.situation, range(base, base + count),
                                        self.policy)
            else:
                tally = run_chunk(self._deck_json, sc.params, self.policy, self.seed, start,
                                  count)
            whole = self._tallies.get(sc.index)
            if whole is None:
                self._tallies[sc.index] = tally
            else:
                whole.merge(tally)
            self.done += count
            if time.perf_counter() >= deadline:
                break

    def result(self) -> Dict[str, Any]:
        """The figures ``sorteio simulate --json`` prints, with the per-scenario 95% interval
        (Wilson) and, for a sweep, the paired difference from the baseline (§7's 4 points)."""
        if self._result is None:
            index = CompiledDeck(self.deck)
            done = [ScenarioResult(sc, self._tallies[sc.index], index) for sc in self.scenarios]
            base = done[0]
            for r in done:
                r.diff = paired_difference(r.tally.catastrophe, base.tally.catastrophe)
            sweep = SweepResult(done, list(self.grid), self.matches, self.seed, self.policy,
                                self.deck.nome, False, len(done), 1,
                                kernel="oracle" if self.situation is not None else "python")
            data = sweep_json(sweep, Names.of(self.deck))  # with "names": id -> display name
            for row, r in zip(data["scenarios"], done):
                row["card_draws_per_match"] = r.card_frequency()
                row["label"] = r.scenario.label(list(self.grid))
            self._result = json.loads(json.dumps(data))  # plain JSON data, NaN-free
        return self._result


PER_CARD_CHUNK = 500  # matches per chunk of a per-card job (C kernel ~2 ms, Python ~35 ms)


class PerCardJob:
    """``sorteio simulate --per-card`` played a chunk at a time (``percard_study.PerCardPlan``):
    rounds until every card's Δ catastrophe is known to ``precision`` points or the cap, then
    Benjamini-Hochberg. ``total`` grows after each round (the matches the cards still need)."""

    def __init__(self, deck: Any, seed: int, policy: str, precision: float,
                 max_matches: int) -> None:
        from ..sim.percard_study import PerCardPlan

        self.deck = deck
        self.plan = PerCardPlan(deck, seed, policy, precision, max_matches,
                                chunk=PER_CARD_CHUNK)
        self._deck_json = deck.model_dump_json()
        self._work = iter(self.plan.work())
        self._result: Optional[Dict[str, Any]] = None

    @property
    def done(self) -> int:
        return self.plan.done

    @property
    def total(self) -> int:
        return self.plan.progress().planned

    @property
    def finished(self) -> bool:
        return self.plan.finished

    def extra(self) -> Dict[str, Any]:
        p = self.plan.progress()
        return {"round": p.round if self.finished else p.round + 1,
                "cards_settled": p.settled, "cards": p.cards}

    def step(self, budget_ms: int) -> None:
        """Play chunks until ``budget_ms`` has passed (at least one), ending rounds as they
        complete."""
        deadline = time.perf_counter() + budget_ms / 1000
        plan = self.plan
        params = plan.scenarios[0].params
        while not plan.finished:
            item = next(self._work, None)
            if item is None:
                plan.end_round()
                self._work = iter(plan.work())
                continue
            s_index, start, count = item
            plan.add(item, run_chunk(self._deck_json, params, plan.policy, plan.seed, start,
                                     count, None, plan.scenarios[s_index].without,
                                     **plan.chunk_options(item)))
            if time.perf_counter() >= deadline:
                break

    def result(self) -> Dict[str, Any]:
        """The figures ``sorteio simulate --per-card --json`` prints (``percard_report``), with
        ``names`` (id -> display name) and ``kernel``."""
        if self._result is None:
            from ..sim.kernels import kernel_name
            from ..sim.percard_report import per_card_json

            data = per_card_json(self.plan.result(kernel_name(), 1))
            names = Names.of(self.deck)
            data["names"] = {"medidores": names.meters, "modos": names.modes,
                             "atores": names.actors}
            self._result = json.loads(json.dumps(data))
        return self._result


def _per_card_params(params: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """``per_card``: null/false (a sweep), true (the defaults) or ``{"precision": points,
    "max_matches": n}``."""
    from ..sim.percard import DEFAULT_HALF_WIDTH_PP, DEFAULT_MAX_MATCHES

    value = params.get("per_card")
    if value is None or value is False:
        return None
    if value is True:
        value = {}
    if not isinstance(value, dict):
        raise DesignerError("bad_request", _("'per_card' must be true, false, null or an object "
                                             "{{precision, max_matches}}").format())
    precision = value.get("precision", DEFAULT_HALF_WIDTH_PP)
    if (not isinstance(precision, (int, float)) or isinstance(precision, bool)
            or not 0.01 <= precision <= 50):
        raise DesignerError("bad_request", _("'per_card.precision' must be a number of points "
                                             "from 0.01 to 50"))
    cap = _int(value, "max_matches", DEFAULT_MAX_MATCHES, 1, 1_000_000)
    return {"precision": float(precision), "max_matches": cap}


class Simulations:
    """The running simulation jobs of one handler, by id."""

    def __init__(self) -> None:
        self.jobs: Dict[int, Any] = {}  # SimulationJob or PerCardJob
        self._ids = itertools.count(1)

    def start(self, params: Dict[str, Any]) -> Dict[str, Any]:
        """``simulate_start``. Params: ``deck``; ``matches`` (1-1,000,000, default 3000);
        ``seed`` (default 0); ``policy``; ``sweep``: list of ``"name=values"`` strings as
        ``sorteio simulate --param`` takes (e.g. ``"teto_obrigatorias=2..4"``), or null for the
        deck's own parameters only; ``situation``: a situation file's path (or ``secao4``) every
        match starts from (``sorteio simulate --situation``; no sweep then), or null;
        ``per_card``: true or ``{"precision": points (default 0.07), "max_matches": per card
        (default 400,000)}`` for the per-card study instead of a sweep (``PerCardJob``;
        ``matches``, ``sweep`` and ``situation`` are then not taken). Result ``{"job", "total",
        "scenarios"}``."""
        deck = load_deck(_deck_param(params))
        per_card = _per_card_params(params)
        situation_path = _path_param(params, "situation")
        if per_card is not None and situation_path:
            raise DesignerError("bad_request", _("'per_card' plays whole matches of the deck: "
                                                 "give no 'situation'"))
        situation = load_situation(situation_path, deck) if situation_path else None
        matches = _int(params, "matches", DEFAULT_MATCHES, 1, 1_000_000)
        seed = _int(params, "seed", 0, 0, 2**31 - 1)
        policy = _policy(params)
        sweep = params.get("sweep") or []
        if not isinstance(sweep, list) or not all(isinstance(s, str) for s in sweep):
            raise DesignerError("bad_request",
                                _("'sweep' must be a list of 'name=values' strings"))
        grid: Dict[str, List[int]] = {}
        job: Any
        if situation is not None and sweep:
            raise DesignerError("bad_request", _("a simulation from a 'situation' runs the "
                                                 "deck's own parameters: no 'sweep'"))
        try:
            for text in sweep:
                name, values = parse_param(text)
                grid[name] = values
            if per_card is not None:
                if grid:
                    raise DesignerError("bad_request", _("'per_card' compares cards under the "
                                                         "deck's own parameters: give no "
                                                         "'sweep'"))
                job = PerCardJob(deck, seed, policy, **per_card)
            else:
                job = SimulationJob(deck, grid, matches, seed, policy, situation)
        except SweepError as exc:
            raise DesignerError("bad_request", str(exc)) from None
        while len(self.jobs) >= MAX_JOBS:
            del self.jobs[min(self.jobs)]
        ident = next(self._ids)
        self.jobs[ident] = job
        scenarios = len(job.plan.scenarios) if per_card is not None else len(job.scenarios)
        return {"job": ident, "total": job.total, "scenarios": scenarios}

    def step(self, params: Dict[str, Any]) -> Dict[str, Any]:
        """``simulate_step`` [``job``, ``budget_ms`` 1-5000, default 150]: plays on. Result
        ``{"job", "done", "total", "finished", "result"}``; ``result`` (the figures, see
        ``SimulationJob.result`` and ``PerCardJob.result``) only once finished, when the job is
        forgotten. A per-card job adds ``round``, ``cards_settled`` and ``cards``."""
        job_id = self._job_id(params)
        job = self.jobs[job_id]
        job.step(_int(params, "budget_ms", DEFAULT_BUDGET_MS, 1, 5000))
        result = None
        if job.finished:
            result = job.result()
            del self.jobs[job_id]
        reply = {"job": job_id, "done": job.done, "total": job.total,
                 "finished": job.finished, "result": result}
        if isinstance(job, PerCardJob):
            reply.update(job.extra())
        return reply

    def cancel(self, params: Dict[str, Any]) -> Dict[str, Any]:
        """``simulate_cancel`` [``job``]: forget a job (the panel's Stop button)."""
        job_id = self._job_id(params)
        del self.jobs[job_id]
        return {"job": job_id, "cancelled": True}

    def _job_id(self, params: Dict[str, Any]) -> int:
        job_id = _int(params, "job", 0, 1, 2**62)
        if job_id not in self.jobs:
            raise DesignerError("no_job", _("no simulation job {job} (finished or "
                                            "cancelled)").format(job=job_id))
        return job_id


# -- spreadsheets (issue 15) -----------------------------------------------------------------


def _required_path(params: Dict[str, Any], name: str) -> str:
    value = params.get(name)
    if not isinstance(value, str) or not value.strip():
        raise DesignerError("bad_request", _("'{name}' must be a file path").format(name=name))
    return value


def _sheet_row(source: str, issue: Any, severity: str) -> Dict[str, Any]:
    return {"severity": severity, "file": source, "cell": issue.cell, "card_id": issue.card_id,
            "field": issue.column, "message": issue.message}


def sheet_export(params: Dict[str, Any]) -> Dict[str, Any]:
    """``sorteio sheet export``: params ``deck`` (path, built-in name or null) and ``sheet``
    (the file to write: ``.xlsx``, or ``.csv`` for Excel pt-BR). Result ``{"file", "format":
    "xlsx"|"csv", "deck", "cards", "warnings": [row]}``, a row being ``{"severity", "file",
    "cell" ("cartas!C14"), "card_id", "field" (the column), "message"}``. A deck that does not
    validate is a ``deck_error`` reply; a bad file name, a folder that does not exist or openpyxl
    missing for .xlsx (``pip install 'sorteio[sheets]'``) a ``bad_request``."""
    from ..sheets import SheetError, export_deck

    deck_name = _deck_param(params)
    target = _required_path(params, "sheet")
    try:
        done = export_deck(deck_name, target)
    except SheetError as exc:
        raise DesignerError("bad_request", str(exc)) from None
    return {"file": done.file, "format": done.format, "deck": done.deck, "cards": done.cards,
            "warnings": [_sheet_row(done.file, w, "warning") for w in done.warnings]}


def sheet_import(params: Dict[str, Any]) -> Dict[str, Any]:
    """``sorteio sheet import``: params ``sheet`` (the .xlsx or .csv to read) and ``out`` (the
    .json deck to write; its key order is kept when it exists). A sheet with problems is a
    normal answer, as ``validate``'s: ``{"file" (the sheet), "out", "valid": false, "written":
    false, "errors": [row]}`` with every problem naming its cell (row as in ``sheet_export``);
    else ``valid``/``written`` true and ``summary`` ``{"nome", "cards", "playable", "meters",
    "actors"}``. Nothing is written when there is a problem."""
    from ..sheets import SheetError, import_sheet

    source = _required_path(params, "sheet")
    target = _required_path(params, "out")
    try:
        done = import_sheet(source, target)
    except SheetError as exc:
        return {"file": source, "out": target, "valid": False, "written": False,
                "errors": [_sheet_row(exc.source, i, "error") for i in exc.issues]}
    deck = done.deck
    return {"file": source, "out": done.file, "valid": True, "written": True, "errors": [],
            "summary": {"nome": deck.nome, "cards": len(deck.cartas),
                        "playable": sum(c.playable for c in deck.cartas),
                        "meters": len(deck.medidores), "actors": len(deck.atores)}}
