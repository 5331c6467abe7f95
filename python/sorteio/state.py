"""Save and load a match at any point, mid-turn included (issue: determinism).

The saved JSON holds every counter and the RNG state (not the seed), so a loaded match continues
exactly as if it had never been saved. Ids, not positions, are stored: a save file is readable, and
``restore_state`` checks it against the deck through the deck's fingerprint. A save made with
another version of the deck is adapted to it where the GDD's guarantees allow (``upgrade.py``).
"""

from typing import Any, Dict, List, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError
from typing_extensions import Literal

from .errors import NotASavedMatch, StateError
from .i18n import N_, _
from .phases import AWAITING_CHOICE, DRAWING, ENDED, TURN_START, YEARS
from .results import ACTOR, EMERGENCY, METER, Draw, MatchEnd, Obligation, TurnEnd, TurnStart
from .upgrade import FORMAT_UPDATED, MAX_EARLIER_DECKS, adapt, retired_of, with_retired
from .validation_text import error_text

FORMAT = "sorteio-match/1"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


Meters = Dict[str, StrictInt]
Phase = Literal["turn_start", "drawing", "awaiting_choice", "ended"]
Kind = Literal["emergency", "actor", "meter"]


class SavedMerged(_Model):
    kind: Kind
    target: str


class SavedObligation(_Model):
    kind: Kind
    target: str
    card_id: Optional[str]
    merged: List[SavedMerged] = Field(default_factory=list)


class SavedReason(_Model):
    kind: Literal["mandatory", "random", "scene"]
    obligation: Optional[Kind] = None
    target: Optional[str] = None
    candidates: Optional[StrictInt] = None
    mode_relaxed: Optional[bool] = None
    replaces: Optional[SavedObligation] = None
    merged: Optional[List[SavedMerged]] = None


class SavedDraw(_Model):
    slot: StrictInt = Field(ge=0)
    card_id: str
    reason: dict  # kept as given, checked against SavedReason in _restore
    option_order: List[StrictInt]


class SavedTurnStart(_Model):
    year: StrictInt = Field(ge=1, le=YEARS)
    mandatory: List[SavedObligation]


class SavedTurnEnd(_Model):
    year: StrictInt = Field(ge=1, le=YEARS)
    cards: StrictInt = Field(ge=0)
    short: bool
    meters: Meters


class SavedEnding(_Model):
    reason: Literal["catastrophe", "end_of_mandate"]
    year: StrictInt = Field(ge=1, le=YEARS)
    cards_played: StrictInt = Field(ge=0)
    short: bool
    meters: Meters
    zeroed: Optional[str]


class SavedRetired(_Model):
    id: str
    slot: bool


class SavedMatch(_Model):
    """The whole engine state. ``rng``: 625 Mersenne Twister words (see ``Rng.get_state``).
    ``earlier_decks`` and ``retired`` (format 2 only) say the match crossed a deck update
    (``upgrade.py``)."""

    format: Literal["sorteio-match/1", "sorteio-match/2"] = FORMAT
    deck: str = Field(description="fingerprint of the deck the match was played with")
    deck_name: Optional[str] = Field(None, description="its nome (saves before issue 14 lack it)")
    year: StrictInt = Field(ge=1, le=YEARS)
    phase: Phase
    slot: StrictInt = Field(ge=0, le=8)
    meters: Meters
    satisfaction: Meters
    played: List[str]
    emergency_spent: List[str]
    attacked: List[str]
    carried: List[str]
    last_closing: Optional[Meters]
    pending: List[SavedObligation]
    turn_cards: List[str]
    current: Optional[SavedDraw]
    last_turn_start: Optional[SavedTurnStart]
    last_turn_end: Optional[SavedTurnEnd]
    ending: Optional[SavedEnding]
    rng: List[StrictInt] = Field(min_length=625, max_length=625)
    earlier_decks: List[str] = Field(default_factory=list, max_length=MAX_EARLIER_DECKS)
    retired: List[SavedRetired] = Field(default_factory=list)


# This module reads and writes an ``engine.Engine``'s attributes without importing engine.py
# (which imports it): ``Any`` below is always an Engine.


def save_state(engine: Any) -> dict:
    """The engine's whole state as JSON-safe data (``SavedMatch`` shape)."""
    ix = engine.index
    cards, meters, actors = ix.card_ids, ix.meter_ids, ix.actor_ids
    current = engine.current
    retired, earlier = retired_of(ix)
    data = {
        "format": FORMAT,
        "deck": ix.fingerprint,
        "deck_name": engine.deck.nome,
        "year": engine.year,
        "phase": engine.phase,
        "slot": engine.slot,
        "meters": engine.meter_values(),
        "satisfaction": dict(zip(actors, engine.satisfaction)),
        "played": [cards[c] for c in engine.played],
        "emergency_spent": [meters[m] for m, s in enumerate(engine.emergency_spent) if s],
        "attacked": [actors[a] for a, s in enumerate(engine.attacked) if s],
        "carried": [meters[m] for m in engine.carried],
        "last_closing": (None if engine.last_closing is None
                         else dict(zip(meters, engine.last_closing))),
        "pending": [engine._public(ob).to_dict() for ob in engine.pending],
        "turn_cards": [cards[c] for c in engine.turn_cards],
        "current": None if current is None else {
            "slot": current.slot, "card_id": current.card_id, "reason": current.reason,
            "option_order": list(current.option_order),
        },
        "last_turn_start": (None if engine.last_turn_start is None
                            else engine.last_turn_start.to_dict()),
        "last_turn_end": None if engine.last_turn_end is None else engine.last_turn_end.to_dict(),
        "ending": None if engine.ending is None else engine.ending.to_dict(),
        "rng": engine.rng.get_state(),
    }
    if earlier:  # only a match that crossed a deck update: other saves stay format 1
        data.update(format=FORMAT_UPDATED, earlier_decks=list(earlier),
                    retired=[dict(r) for r in retired])
    return data


def restore_state(engine: Any, data: object) -> List[str]:
    """Put ``save_state`` output into ``engine``, an ``Engine`` just built for the deck (``Engine
    .from_state`` does both). A save made with another version of the deck is adapted to this
    one first (``upgrade.adapt``); returns the notes saying what that changed (empty when the
    save was made with this very deck).

    Raises ``StateError`` listing every problem found: a malformed file, a deck update that
    cannot keep the match (a meter or actor removed or added, N changed), or a state no match
    can reach (a meter at 0 outside phase ``ended``, more slot cards than N, a card shown
    twice...).
    """
    if (isinstance(data, dict) and "format" not in data
            and {"medidores", "cartas"} & set(data)):
        raise StateError(_("saved match: this is a deck, not a saved match (give the deck with "
                           "--deck and a file written by `play --save` or Sorteio.save_state)"))
    try:
        saved = SavedMatch.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        _raise_if_not_a_saved_match(errors)
        lines = [f"{'.'.join(str(p) for p in e['loc']) or '(state)'}: {error_text(e)}"
                 for e in errors]
        raise StateError(_saved_match(lines)) from None
    problems: List[str] = []
    notes: List[str] = []
    if saved.deck != engine.index.fingerprint:  # the fast path is a save made with this deck
        dumped = saved.model_dump()
        notes = adapt(engine, dumped, problems)
        if problems:
            raise StateError(_("saved match cannot continue on this deck (it was made with "
                               "another deck, or another version of it):") + "\n"
                             + "\n".join(problems))
        saved = SavedMatch.model_validate(dumped)
    if saved.retired and not saved.earlier_decks:
        problems.append(_("retired: only a match that crossed a deck update has retired cards"))
    if saved.earlier_decks:
        ids = [r.id for r in saved.retired]
        if len(set(ids)) != len(ids) or not set(ids) <= set(saved.played):
            problems.append(_("retired: each retired card is a played card, listed once"))
        for r in saved.retired:
            if r.id in engine.index.card_index:
                problems.append(_("retired: card '{card}' is in the deck").format(card=r.id))
            if saved.current is not None and saved.current.card_id == r.id:
                problems.append(_("current: retired card '{card}' cannot await a choice").format(
                    card=r.id))
        if not problems:
            engine.index = with_retired(engine.index, [r.model_dump() for r in saved.retired],
                                        saved.earlier_decks)
            engine.is_played.extend([False] * len(saved.retired))
    if not problems:
        _restore(engine, saved, problems)
    if problems:
        raise StateError(_saved_match(problems))
    return notes


def _raise_if_not_a_saved_match(errors: List[Any]) -> None:
    """Raises ``NotASavedMatch`` (one sentence) when more than half of the fields a saved match
    requires are missing: the data is no saved match, and a "field required" line for each of
    them (18 for an unrelated object) would bury the one thing to say."""
    required = [name for name, field in SavedMatch.model_fields.items() if field.is_required()]
    missing = [name for name in required
               if any(e["type"] == "missing" and tuple(e["loc"]) == (name,) for e in errors)]
    if len(missing) * 2 <= len(required):
        return
    shown = ", ".join(missing[:4]) + (", ..." if len(missing) > 4 else "")
    raise NotASavedMatch(
        _("saved match: this is not a saved match: {count} of the {total} fields a save holds "
          "are missing ({fields}); give a file written by `play --save` or "
          "Sorteio.save_state, unchanged").format(count=len(missing), total=len(required),
                                                   fields=shown),
        missing, len(required)) from None


def _saved_match(problems: List[str]) -> str:
    """``saved match: <problem>``, one line each, in the run's language."""
    return "\n".join(_("saved match: {problem}").format(problem=p) for p in problems)


# One sentence per kind of id, so each language can agree the adjective with its noun (pt-BR:
# "carta desconhecida", "medidor desconhecido"); an emergency's target is a meter.
_UNKNOWN = {
    "card": N_("unknown card {ident!r}"),
    "meter": N_("unknown meter {ident!r}"),
    "emergency": N_("unknown meter {ident!r}"),
    "actor": N_("unknown actor {ident!r}"),
}


def _restore(engine: Any, saved: SavedMatch, problems: List[str]) -> None:
    ix = engine.index
    card, meter, actor = ix.card_index, ix.meter_index, ix.actor_index

    def lookup(table: Dict[str, int], ident: str, what: str) -> int:
        if ident not in table:
            problems.append(_(_UNKNOWN[what]).format(ident=ident))
            return -1
        return table[ident]

    def values(given: Dict[str, int], table: Dict[str, int], what: str) -> List[int]:
        if set(given) != set(table):
            problems.append(_("{what}: must list exactly the deck's ids ({ids})").format(
                what=what, ids=', '.join(table)))
            return [0] * len(table)
        wrong = [f"{k} = {v}" for k, v in given.items() if not 0 <= v <= 100]
        if wrong:  # which ones: a designer fixing a hand-written save needs the id
            problems.append(_("{what}: values must be 0-100 ({values})").format(
                what=what, values=", ".join(wrong)))
        return [given[k] for k in table]

    def obligation(ob: SavedObligation) -> list:
        target = lookup(actor if ob.kind == ACTOR else meter, ob.target, ob.kind)
        c = -1 if ob.card_id is None else lookup(card, ob.card_id, "card")
        merged = tuple((m.kind, lookup(actor if m.kind == ACTOR else meter, m.target, m.kind))
                       for m in ob.merged)
        return [ob.kind, target, c, merged]

    engine.year, engine.phase, engine.slot = saved.year, saved.phase, saved.slot
    engine.meters = values(saved.meters, meter, "meters")
    engine.satisfaction = values(saved.satisfaction, actor, "satisfaction")
    engine.played = [lookup(card, c, "card") for c in saved.played]
    twice = sorted({c for c in saved.played if saved.played.count(c) > 1})
    if twice:
        problems.append(_("played: listed twice: {cards} (§3.1.2)").format(
            cards=", ".join(twice)))
    for c in engine.played:
        engine.is_played[c] = True
    for m in saved.emergency_spent:
        engine.emergency_spent[lookup(meter, m, "meter")] = True
    for a in saved.attacked:
        engine.attacked[lookup(actor, a, "actor")] = True
    engine.carried = [lookup(meter, m, "meter") for m in saved.carried]
    engine.last_closing = (None if saved.last_closing is None
                           else values(saved.last_closing, meter, "last_closing"))
    engine.pending = [obligation(ob) for ob in saved.pending]
    engine.turn_cards = [lookup(card, c, "card") for c in saved.turn_cards]
    if saved.current is not None:
        c = lookup(card, saved.current.card_id, "card")
        if c >= 0 and sorted(saved.current.option_order) != list(range(ix.n_options[c])):
            problems.append(_("current.option_order: not a permutation of the card's options"))
        if not saved.played or saved.played[-1] != saved.current.card_id:
            problems.append(_("current: the card awaiting a choice must be the last one played"))
        try:
            SavedReason.model_validate(saved.current.reason)
        except ValidationError:
            problems.append(_("current.reason: not a reason the engine gives"))
        if c >= 0:
            engine.current_card = c
            engine.current = Draw(saved.year, saved.current.slot, ix.card_ids[c],
                                  ix.card_json(c), saved.current.reason,
                                  list(saved.current.option_order))
    if (saved.current is not None) != (saved.phase == AWAITING_CHOICE):
        problems.append(_("current: a card awaits a choice exactly in phase 'awaiting_choice'"))
    if saved.last_turn_start is not None:
        engine.last_turn_start = TurnStart(saved.last_turn_start.year, [
            Obligation(o.kind, o.target, o.card_id, tuple((m.kind, m.target) for m in o.merged))
            for o in saved.last_turn_start.mandatory])
    if saved.last_turn_end is not None:
        engine.last_turn_end = TurnEnd(**saved.last_turn_end.model_dump())
    if saved.ending is not None:
        engine.ending = MatchEnd(**saved.ending.model_dump())
    if (saved.phase == ENDED) != (saved.ending is not None):
        problems.append(_("ending: phase 'ended' and 'ending' go together"))
    _check_reachable(engine, saved, problems)
    if not problems:  # the obligations and the history are judged on ids that resolve
        _check_obligations(engine, problems)
        _check_closing(saved, problems)
    if not problems:
        _check_history(engine, saved, problems)
    try:
        engine.rng.set_state(saved.rng)
    except ValueError as exc:
        problems.append(_("rng: {problem}").format(problem=exc))


def _check_reachable(engine: Any, saved: SavedMatch, problems: List[str]) -> None:
    """Refuse states no match can reach, which would make the engine break its own rules."""
    ix = engine.index
    if saved.phase != ENDED and any(v == 0 for v in saved.meters.values()):
        problems.append(_("meters: a meter at 0 ends the match at once (§5 'Fim imediato')"))
    if saved.slot > ix.n_slots or saved.slot != len(saved.turn_cards):
        problems.append(_("slot: {slot} cards in this turn's slots, but N = {n} and turn_cards "
                          "lists {listed}").format(
                              slot=saved.slot, n=ix.n_slots, listed=len(saved.turn_cards)))
    if not set(saved.turn_cards) <= set(saved.played):
        problems.append(_("turn_cards: every card of the turn must be in 'played'"))
    reserved = [ob.card_id for ob in saved.pending if ob.card_id is not None]
    if set(reserved) & set(saved.played) or len(set(reserved)) != len(reserved):
        problems.append(_("pending: a reserved card is already played or reserved twice"))
    keys = [(ob.kind, ob.target) for ob in saved.pending]
    if len(set(keys)) != len(keys):
        problems.append(_("pending: an obligation is listed twice"))
    if saved.phase == TURN_START and (saved.pending or saved.current is not None):
        problems.append(_("pending: no obligation can wait before the turn starts"))


_KIND_ORDER = {EMERGENCY: 0, ACTOR: 1, METER: 2}


def _check_obligations(engine: Any, problems: List[str]) -> None:
    """Refuse a mandatory list the engine cannot build (§3.3, §4, §5): kinds out of order
    (emergencies, then actors, then meters), more actor and meter obligations than the cap T, or
    a reserved card that does not serve its obligation or one merged into it (a card not linked
    to the low meter would be shown as that meter's mandatory card)."""
    ix = engine.index
    pending = engine.pending
    kinds = [_KIND_ORDER[ob[0]] for ob in pending]
    if kinds != sorted(kinds):
        problems.append(_("pending: obligations must be in the order emergencies, actors, meters "
                          "(§3.3)"))
    if sum(kind != EMERGENCY for kind, *_ in pending) > ix.cap:
        problems.append(_("pending: more actor and meter obligations than the cap T = {cap} "
                          "(§3.3, §4)").format(cap=ix.cap))
    for kind, target, card, merged in pending:
        for k, t in ((kind, target), *merged):
            same_meter = k != ACTOR and kind != ACTOR and t == target
            if (k, t) != (kind, target) and same_meter:
                continue
            if card >= 0 and not engine._serves(card, k, t):
                what = ix.actor_ids[t] if k == ACTOR else ix.meter_ids[t]
                problems.append(_("pending: card '{card}' does not serve the {k} obligation of "
                                  "'{what}' (§3.2, §3.3)").format(
                                      card=ix.card_ids[card], k=k, what=what))
            elif card < 0 and (k, t) != (kind, target):
                problems.append(_("pending: an obligation without a card can only merge one for "
                                  "the same meter (§5)"))


def _check_closing(saved: SavedMatch, problems: List[str]) -> None:
    """The values of the last closing are saved twice (``last_closing`` for the emergencies of
    §3.3.1, ``last_turn_end.meters`` for display); an edited copy would forge or drop one."""
    last = saved.last_turn_end
    if last is not None and saved.last_closing != last.meters:
        problems.append(_("last_closing: must be the meters of last_turn_end (the values the "
                          "previous turn closed at, §3.3.1)"))


def _check_history(engine: Any, saved: SavedMatch, problems: List[str]) -> None:
    """Refuse a save whose cards shown do not fit its own history: the years and slots it has
    closed (GDD 06 §3.1.2 "no repeat" rests on ``played``; a card lost from it would be drawn
    again). Checked: each card shown can be drawn (or is a scene card); ``turn_cards`` are the last
    slot cards shown; ``attacked`` is what the attack cards shown say (§3.3.2); ``ending`` counts
    the cards shown; and the slot cards of the closed turns split into one run per closed year
    such that each run has N cards, or fewer only when that turn ran out of eligible cards (§5:
    every card of no actor with ano_minimo up to that year shown by then), each card shown no
    earlier than its ano_minimo (§3.1.3), and the last closed turn has the cards its
    ``last_turn_end`` says; between turns, a short last turn also ran out of the actor cards
    the actors' present levels call for. A real match always fits; a save that lost a slot card
    does not on the shipped decks (tests/test_state.py). Not seen: a lost scene card (outside
    the N slots, it leaves no count behind) and, in decks so small that turns run short, a lost
    actor card whose actor has since changed level.

    A match that crossed a deck update (``earlier_decks``, ``upgrade.py``) showed its cards under
    other decks' ano_minimo, drafts and actors: only what does not depend on the deck is judged
    (the tail, the ending's count, ``last_turn_end``, at most N slot cards per closed turn)."""
    ix = engine.index
    played = engine.played
    mixed = bool(saved.earlier_decks)  # played partly with other versions of the deck
    if not played and saved.last_turn_end is None:
        # Nothing shown and no closing recorded: no history to judge (and no card to lose).
        # Test scenarios build such states at any year (tests/scenario.py engine_at).
        return
    slot_cards = [c for c in played if not ix.is_scene[c]]
    for c in [] if mixed else played:
        if not (ix.playable[c] or ix.is_scene[c]):
            problems.append(_("played: card '{card}' is never drawn (a draft, §3.1.1)").format(
                card=ix.card_ids[c]))
    tail = slot_cards[len(slot_cards) - len(engine.turn_cards):]
    if tail != engine.turn_cards:
        problems.append(_("turn_cards: must be the last slot cards in 'played', in order"))
    shown_attacks = {ix.actor[c] for c in played if ix.is_attack[c]}
    if not mixed and {a for a, s in enumerate(engine.attacked) if s} != shown_attacks:
        problems.append(_("attacked: must be the actors whose attack card is in 'played' (§3.3.2)"))
    ending = saved.ending
    if ending is not None and (ending.cards_played != len(played) or ending.year != saved.year):
        problems.append(_("ending: cards_played and year must match 'played' and 'year'"))
    if problems:
        return
    closed_turns = saved.year - 1
    if saved.phase == ENDED and ending is not None and ending.reason == "end_of_mandate":
        closed_turns = YEARS
    # Which slot cards belong to closed turns: between turns (and after the mandate) turn_cards
    # still lists the last closed turn's cards; inside a turn they are the open turn's. A match
    # ended by a meter at 0 may have stopped either inside a turn or at its start.
    inside = len(slot_cards) - len(engine.turn_cards)  # closed cards if a turn is open
    if saved.phase in (DRAWING, AWAITING_CHOICE):
        readings = [inside]
    elif saved.phase == TURN_START or closed_turns == YEARS:
        readings = [len(slot_cards)]
    else:  # ended by a meter at 0
        readings = [inside, len(slot_cards)] if closed_turns else [inside]
    open_ok = mixed or all(ix.year_min[c] <= saved.year for c in engine.turn_cards)
    if not open_ok:
        problems.append(_("turn_cards: a card shown before its ano_minimo (§3.1.3)"))
        return
    last = saved.last_turn_end
    if (last is None) != (closed_turns == 0) or (last is not None and last.year != closed_turns):
        state = (_("missing") if last is None
                 else _("of year {year}").format(year=last.year))
        problems.append(_("last_turn_end: {closed_turns} turn(s) closed, but last_turn_end is "
                          "{state}").format(closed_turns=closed_turns, state=state))
        return
    if mixed:  # the cards' years, drafts and actors were those of other decks: counts only
        if not any(n <= ix.n_slots * closed_turns and (last is None or last.cards <= n)
                   for n in readings):
            problems.append(_("played: the {count} slot cards shown do not fit {closed_turns} "
                              "closed turn(s) of N = {n}").format(
                                  count=len(slot_cards), closed_turns=closed_turns, n=ix.n_slots))
        return
    between = saved.phase == TURN_START or (saved.phase == ENDED and closed_turns == YEARS)
    if between and last is not None and last.short:
        # Between turns the actors' moods are those of the short turn's end, so its actor cards
        # of the functions then called for are known to have run out too.
        missing = [ix.card_ids[c] for c in range(len(ix.card_ids))
                   if ix.playable[c] and ix.actor[c] >= 0 and not engine.is_played[c]
                   and ix.year_min[c] <= last.year and ix.function[c] ==
                   ix.level_function[ix.level_of[engine.satisfaction[ix.actor[c]]]]]
        if missing:
            problems.append(_("played: turn {year} ended short (§5), yet actor card '{card}' was "
                              "eligible and is not in 'played'").format(
                                  year=last.year, card=missing[0]))
            return
    if not any(_fits(ix, slot_cards[:n], closed_turns, last) for n in readings):
        problems.append(_("played: the {count} slot cards shown do not fit {closed_turns} closed "
                          "turn(s) of N = {n} (a card missing from 'played', or one shown before "
                          "its year?)").format(
                              count=len(slot_cards), closed_turns=closed_turns, n=ix.n_slots))


def _fits(ix, cards: List[int], turns: int, last: Optional[SavedTurnEnd]) -> bool:
    """Can ``cards`` (in showing order) be the slot cards of ``turns`` closed turns? See
    ``_check_history``; a small dynamic programme over where each turn ends."""
    n = ix.n_slots
    if len(cards) > n * turns:
        return False
    must_show = [0] * (YEARS + 1)  # per year: cards of no actor that a short turn has exhausted
    for c, playable in enumerate(ix.playable):
        if playable and ix.actor[c] < 0:
            for year in range(ix.year_min[c], YEARS + 1):
                must_show[year] += 1
    shown_by = [[0] * (len(cards) + 1) for _ in range(YEARS + 1)]
    for year in range(1, YEARS + 1):
        for i, c in enumerate(cards):
            counts = ix.actor[c] < 0 and ix.year_min[c] <= year
            shown_by[year][i + 1] = shown_by[year][i] + counts
    ends = {0}
    for year in range(1, turns + 1):
        following = set()
        for start in ends:
            for stop in range(start, min(start + n, len(cards)) + 1):
                if stop > start and ix.year_min[cards[stop - 1]] > year:
                    break  # this card cannot be shown this early
                size = stop - start
                if size < n and shown_by[year][stop] != must_show[year]:
                    continue  # a short turn must have run out of eligible cards
                if year == turns and (stop != len(cards) or
                                      (last is not None and last.cards != size)):
                    continue
                following.add(stop)
        ends = following
    return len(cards) in ends if turns else not cards
