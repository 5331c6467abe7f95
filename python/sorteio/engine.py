"""The GDD 06 draw engine: eligibility (§3.1), linked cards (§3.2), the mandatory list at turn start
(§3.3), random slots drawn one at a time at display (§3.4), and the edge cases of §5.

It also keeps the match state the rules read (meters, actors' satisfaction, year, closings): the
reference stand-in for systems 01, 07 and 10 (GDD 06 §6). Life of a turn::

    engine.start_turn()            # §3.3: builds the mandatory list
    while (draw := engine.draw()):  # §3.4: one card per call, at display time
        engine.choose(option)       # applies the option; may end the match (§5 "Fim imediato")
    # draw() returned None: the turn was closed (§5); engine.phase is "turn_start" or "ended"

Decisions where the GDD leaves room are listed in README.md ("Rule decisions") with their lines.
"""

from typing import List, Optional, Tuple

from .compiled import CompiledDeck, compile_deck
from .deck import Deck
from .errors import EngineError
from .i18n import N_, _
from .keyed import KIND_OF, SLOT, KeyedPicker
from .phases import AWAITING_CHOICE, DRAWING, ENDED, TURN_START, YEARS
from .results import (
    ACTOR,
    CATASTROPHE,
    EMERGENCY,
    END_OF_MANDATE,
    METER,
    Choice,
    Draw,
    MatchEnd,
    Obligation,
    TurnEnd,
    TurnStart,
)
from .rng import Rng

__all__ = ["AWAITING_CHOICE", "DRAWING", "ENDED", "TURN_START", "YEARS", "Engine"]

# An obligation inside the engine: [kind, target position, card position or -1, merged pairs].
_Ob = list

# A call in the wrong phase (EngineError), said in the run's language.
_NOT_NOW_START = N_("cannot start a turn now: the match is in phase '{phase}' (needs '{needs}')")
_NOT_NOW_DRAW = N_("cannot draw a card now: the match is in phase '{phase}' (needs '{needs}')")
_NOT_NOW_SCENE = N_("cannot show a scene card now: the match is in phase '{phase}' (needs "
                    "'{needs}')")
_NOT_NOW_CHOOSE = N_("cannot choose an option now: the match is in phase '{phase}' (needs "
                     "'{needs}')")


class Engine:
    """One match of the draw. ``deck``: a validated ``Deck``; ``seed``: int >= 0.

    ``picker`` (tests and the per-card study's proofs only): a ``keyed.KeyedPicker`` that makes
    every pick, option order included, instead of ``rng`` — the same rules and distribution, the
    keyed draw of the kernels' ``draw="keyed"``. None (the default) is the standard draw that
    saves and ``sorteio play --seed`` replay; a match with a picker has no save.

    Methods raise ``EngineError`` (a ``SorteioError``) when called in the wrong phase or with a bad
    argument; the state is unchanged when they do.
    """

    def __init__(self, deck: Deck, seed: int = 0, picker: Optional[KeyedPicker] = None) -> None:
        self.deck = deck  # keeps the deck (and so its compiled index) alive with the engine
        self.picker = picker
        self.index = self._compile(deck)
        ix = self.index
        self.rng = Rng(seed)
        self.year = 1
        self.phase = TURN_START
        self.slot = 0  # cards shown in this turn's slots (scene cards excluded)
        self.meters = list(ix.initial_meters)
        self.satisfaction = list(ix.initial_satisfaction)
        self.played: List[int] = []  # card positions in showing order
        self.is_played = [False] * len(ix.card_ids)
        self.emergency_spent = [False] * len(ix.meter_ids)
        self.attacked = [False] * len(ix.actor_ids)  # "cuja carta de ataque não saiu" (§3.3.2)
        self.carried: List[int] = []  # emergencies beyond N, first in the next turn (§5)
        self.last_closing: Optional[List[int]] = None
        self.pending: List[_Ob] = []  # obligations not yet shown, in showing order
        self.turn_cards: List[int] = []  # cards shown in this turn's slots
        self.current: Optional[Draw] = None
        self.current_card = -1
        self.last_turn_start: Optional[TurnStart] = None
        self.last_turn_end: Optional[TurnEnd] = None
        self.ending: Optional[MatchEnd] = None

    def _compile(self, deck: Deck) -> CompiledDeck:
        """The deck's integer index, compiled once per deck object (``compiled.compile_deck``); a
        hook: a caller can give an already compiled one."""
        return compile_deck(deck)

    # -- §3.1 eligibility -------------------------------------------------------------------

    def is_eligible(self, c: int) -> bool:
        """§3.1: approved, not yet shown, ano_minimo reached, actor function = actor's level."""
        ix = self.index
        if not ix.playable[c] or self.is_played[c] or ix.year_min[c] > self.year:
            return False
        a = ix.actor[c]
        if a < 0:
            return True
        return ix.function[c] == ix.level_function[ix.level_of[self.satisfaction[a]]]

    def eligible_cards(self) -> List[int]:
        """Every eligible card position, in deck order."""
        return [c for c in range(len(self.index.card_ids)) if self.is_eligible(c)]

    # -- §3.3 turn start --------------------------------------------------------------------

    def start_turn(self) -> TurnStart:
        """Build the mandatory list (§3.3) and open the turn's N slots. Phase: turn_start.

        Run events (GDD 08) before calling it. If a meter is already at 0 the match ends instead
        (phase ``ended``, empty list).
        """
        self._require(TURN_START, _NOT_NOW_START)
        zeroed = self._zeroed_meter()
        if zeroed is not None:  # an event (GDD 08) may have emptied a meter before the draw
            self._end(CATASTROPHE, zeroed)
            return TurnStart(self.year, [])
        self.pending = self._mandatory_list()
        self.carried = []
        self.turn_cards = []
        self.slot = 0
        self.phase = DRAWING
        self.last_turn_start = TurnStart(self.year, [self._public(ob) for ob in self.pending])
        return self.last_turn_start

    def _mandatory_list(self) -> List[_Ob]:
        ix = self.index
        obligations: List[_Ob] = []
        reserved: List[int] = []
        # 1. Emergencies; they ignore the cap (§3.3.1).
        for m in self.pending_emergencies():
            self._add(EMERGENCY, m, obligations, reserved)
        # 2-3. Furious actors, then meters below the limit, up to the cap T (§3.3, §4).
        room = max(0, ix.cap - len(obligations))
        furious = sorted(
            (a for a in range(len(ix.actor_ids))
             if ix.level_of[self.satisfaction[a]] == ix.furious and not self.attacked[a]),
            key=lambda a: (self.satisfaction[a], ix.actor_ids[a]),
        )
        low = sorted(
            (m for m in range(len(ix.meter_ids)) if self.meters[m] < ix.meter_limit),
            key=lambda m: (self.meters[m], m),
        )
        added = 0
        for kind, target in [(ACTOR, a) for a in furious] + [(METER, m) for m in low]:
            if added >= room:
                break  # the surplus is dropped and checked again next turn (§3.3)
            if self._add(kind, target, obligations, reserved):
                added += 1
        return obligations

    def pending_emergencies(self) -> List[int]:
        """Meters owed an emergency this turn: those carried from a full turn first (§5, Em > 7),
        then each meter that closed the previous turn at or below the limit and has not had its
        emergency yet, in GDD 01 order (§3.3.1). None in year 1: there was no closing."""
        emergencies = list(self.carried)
        if self.last_closing is not None:
            limit = self.index.emergency_limit
            for m, value in enumerate(self.last_closing):
                if value <= limit and not self.emergency_spent[m] and m not in emergencies:
                    emergencies.append(m)
        return emergencies

    def _serves(self, c: int, kind: str, target: int) -> bool:
        """Whether card ``c`` answers obligation ``(kind, target)``: an attack card of actor
        ``target`` (§3.3.2), or a card linked to meter ``target`` (§3.2, §3.3.1, §3.3.3)."""
        ix = self.index
        if kind == ACTOR:
            return ix.is_attack[c] and ix.actor[c] == target
        return target in ix.links[c]

    def _add(self, kind: str, target: int, obligations: List[_Ob], reserved: List[int]) -> bool:
        """Add obligation ``(kind, target)`` with its reserved card; False when an earlier one
        already serves it (README "Rule decisions" 2).

        §5 "Mesma carta atende duas obrigações — conta uma vez; entra a próxima candidata": an
        obligation whose need is met by a card already reserved (of any kind: an emergency card
        that is also a Furious actor's attack card, an attack card linked to a low meter, ...) is
        recorded on that obligation, takes no place under the cap T and reserves nothing.
        """
        for ob in obligations:
            same_meter = kind != ACTOR and ob[0] != ACTOR and ob[1] == target
            if same_meter or (ob[2] >= 0 and self._serves(ob[2], kind, target)):
                ob[3] = (*ob[3], (kind, target))
                return False
        pool = self.index.attack_cards[target] if kind == ACTOR else self.index.linked[target]
        candidates = [c for c in pool if c not in reserved and self.is_eligible(c)]
        obligations.append([kind, target, self._pick(candidates, reserved, kind, target), ()])
        return True

    def _pick(self, candidates: List[int], reserved: List[int], kind: str, target: int) -> int:
        """Equal weight among ``candidates`` (deck order); -1 when there is none (§5)."""
        if not candidates:
            return -1
        if self.picker is not None:
            c = self.picker.pick(self, KIND_OF[kind], target, candidates)
        else:
            c = candidates[self.rng.below(len(candidates))]
        reserved.append(c)
        return c

    # -- §3.4 one slot at display time ------------------------------------------------------

    def draw(self) -> Optional[Draw]:
        """Show the next card of the turn, or close the turn and return None (§3.4, §5).

        Mandatory cards come first, in list order; each is checked for eligibility again now, and
        one that fails gives its slot to the random draw (§5). Raises ``EngineError`` unless the
        phase is ``drawing``.
        """
        self._require(DRAWING, _NOT_NOW_DRAW)
        ix = self.index
        while self.slot < ix.n_slots:
            if self.pending:
                ob = self.pending.pop(0)
                card = ob[2]
                if card >= 0 and self.is_eligible(card):
                    target = self._target(ob)
                    reason = {"kind": "mandatory", "obligation": ob[0], "target": target}
                    # §5 "Mesma carta atende duas obrigações": the other needs it also serves
                    # (a meter's emergency and its low-meter obligation are one need).
                    also = [{"kind": k, "target": t} for k, t in self._public(ob).merged
                            if k == ACTOR or t != target or ob[0] == ACTOR]
                    if also:
                        reason["merged"] = also
                    return self._show(card, reason, ob)
                drawn = self._draw_random(self._public(ob).to_dict())
                if drawn is not None:
                    return drawn
                continue  # nothing to replace it with: later obligations may still be served
            drawn = self._draw_random(None)
            if drawn is not None:
                return drawn
            break  # §5: fewer eligible cards than slots; the turn ends short
        self._close_turn()
        return None

    def _draw_random(self, replaces: Optional[dict]) -> Optional[Draw]:
        ix = self.index
        reserved = [ob[2] for ob in self.pending if ob[2] >= 0]
        eligible = [c for c in self.eligible_cards() if c not in reserved]
        if not eligible:
            return None
        # Modes already in the turn, mandatory cards counted (§3.4).
        seen = [ix.mode[c] for c in self.turn_cards] + [ix.mode[c] for c in reserved]
        fresh = [c for c in eligible if seen.count(ix.mode[c]) < ix.mode_limit]
        pool = fresh or eligible  # §3.4: without a card of a new mode, the rule is relaxed
        if self.picker is not None:
            card = self.picker.pick(self, SLOT, self.slot, pool)
        else:
            card = pool[self.rng.below(len(pool))]
        reason = {
            "kind": "random",
            "candidates": len(pool),
            "mode_relaxed": not fresh,
            "replaces": replaces,
        }
        return self._show(card, reason, None)

    def _show(self, card: int, reason: dict, ob: Optional[_Ob]) -> Draw:
        ix = self.index
        if ob is not None and ob[0] == EMERGENCY:
            self.emergency_spent[ob[1]] = True
        if ob is not None:
            for kind, target in ob[3]:
                if kind == EMERGENCY:
                    self.emergency_spent[target] = True
        if ix.is_attack[card]:
            self.attacked[ix.actor[card]] = True
        self.is_played[card] = True
        self.played.append(card)
        scene = reason["kind"] == "scene"
        if not scene:
            self.slot += 1
            self.turn_cards.append(card)
        # GDD 05 §3.4: sides drawn when shown
        order = (self.picker.sides(self, card) if self.picker is not None
                 else self.rng.permutation(ix.n_options[card]))
        self.current = Draw(
            self.year, 0 if scene else self.slot, ix.card_ids[card], ix.card_json(card), reason,
            order,
        )
        self.current_card = card
        self.phase = AWAITING_CHOICE
        return self.current

    def show_scene_card(self, card_id: str) -> Draw:
        """Show an impeachment-scene card: an extra outside the N slots (§3.5, §5).

        The turn then continues with its remaining slots. Raises ``EngineError`` if the card is
        unknown, not of tipo impeachment, already shown, or the phase is not ``drawing``.
        """
        self._require(DRAWING, _NOT_NOW_SCENE)
        c = self.index.card_index.get(card_id)
        if c is None or not self.index.is_scene[c]:
            raise EngineError(_("'{card}' is not an impeachment card of this deck").format(
                card=card_id))
        if self.is_played[c]:
            raise EngineError(_("card '{card}' was already shown in this match (§3.1.2)").format(
                card=card_id))
        return self._show(c, {"kind": "scene"}, None)

    # -- the chosen option (reference systems 01 and 07) ------------------------------------

    def choose(self, option: int) -> Choice:
        """Apply option ``option`` (index into the card's ``opcoes``, original order).

        Meter and satisfaction deltas are added and clamped to 0-100. A meter at 0 ends the match
        at once (§5 "Fim imediato"). Raises ``EngineError`` for a bad index or phase.
        """
        self._require(AWAITING_CHOICE, _NOT_NOW_CHOOSE)
        ix = self.index
        card = self.current_card
        if not isinstance(option, int) or isinstance(option, bool) or not (
            0 <= option < ix.n_options[card]
        ):
            raise EngineError(_("option must be an integer 0-{last} for card '{card}', got "
                                "{option!r}").format(last=ix.n_options[card] - 1,
                                                     card=ix.card_ids[card], option=option))
        meters, sat = self.meters, self.satisfaction
        for m, delta in ix.meter_effects[card][option]:
            meters[m] = min(100, max(0, meters[m] + delta))
        for a, delta in ix.actor_effects[card][option]:
            sat[a] = min(100, max(0, sat[a] + delta))
        self.current = None
        self.current_card = -1
        self.phase = DRAWING
        zeroed = self._zeroed_meter()
        if zeroed is not None:
            self._end(CATASTROPHE, zeroed)
        return Choice(ix.card_ids[card], option, self.meter_values(), self.actor_values(),
                      self.phase == ENDED)

    # -- closing ----------------------------------------------------------------------------

    def _close_turn(self) -> None:
        ix = self.index
        # Emergencies that did not fit in the N slots open the next turn (§5, Em > 7).
        self.carried = [ob[1] for ob in self.pending if ob[0] == EMERGENCY]
        self.pending = []
        self.last_closing = list(self.meters)
        self.last_turn_end = TurnEnd(self.year, self.slot, self.slot < ix.n_slots,
                                     self.meter_values())
        if self.year >= YEARS:
            self.carried = []  # §5: no emergency after the year-4 closing; the mandate is over
            self._end(END_OF_MANDATE, None)
        else:
            self.year += 1
            self.phase = TURN_START

    def _end(self, reason: str, zeroed: Optional[int]) -> None:
        ix = self.index
        self.phase = ENDED
        self.pending = []
        # "Partida curta" (§5) is a mandate that ran out of eligible cards, not a catastrophe.
        slot_cards = sum(not ix.is_scene[c] for c in self.played)
        short = reason == END_OF_MANDATE and slot_cards < ix.n_slots * YEARS
        self.ending = MatchEnd(
            reason, self.year, len(self.played), short, self.meter_values(),
            None if zeroed is None else ix.meter_ids[zeroed],
        )

    # -- helpers ----------------------------------------------------------------------------

    def _zeroed_meter(self) -> Optional[int]:
        for m, value in enumerate(self.meters):
            if value <= 0:
                return m
        return None

    def _require(self, phase: str, refusal: str) -> None:
        """``refusal``: the message id (``N_``) said when the phase is not ``phase``."""
        if self.phase != phase:
            raise EngineError(_(refusal).format(phase=self.phase, needs=phase))

    def _target(self, ob: _Ob) -> str:
        ix = self.index
        return (ix.actor_ids if ob[0] == ACTOR else ix.meter_ids)[ob[1]]

    def _public(self, ob: _Ob) -> Obligation:
        ix = self.index
        merged: Tuple = tuple(
            (k, (ix.actor_ids if k == ACTOR else ix.meter_ids)[t]) for k, t in ob[3])
        card = ix.card_ids[ob[2]] if ob[2] >= 0 else None
        return Obligation(ob[0], self._target(ob), card, merged)

    def meter_values(self) -> dict:
        """``{meter id: value 0-100}`` in GDD 01 order."""
        return dict(zip(self.index.meter_ids, self.meters))

    def actor_values(self) -> dict:
        """``{actor id: {"satisfaction": 0-100, "level": level id}}``."""
        ix = self.index
        return {
            ident: {"satisfaction": s, "level": ix.level_ids[ix.level_of[s]]}
            for ident, s in zip(ix.actor_ids, self.satisfaction)
        }

    def snapshot(self) -> dict:
        """Small JSON-safe view for UIs: year, phase, slot, meters, actors."""
        return {
            "year": self.year,
            "phase": self.phase,
            "slot": self.slot,
            "meters": self.meter_values(),
            "actors": self.actor_values(),
        }

    # -- save / load (see state.py) ---------------------------------------------------------

    def to_state(self) -> dict:
        """Whole state as JSON-safe data, RNG included; ``Engine.from_state`` restores it.
        Raises ``EngineError`` for a match of the keyed draw (its picks are not in the RNG)."""
        if self.picker is not None:
            raise EngineError(_("a match of the keyed draw (a study's) cannot be saved"))
        from .state import save_state  # imported when used: its models cost every start-up

        return save_state(self)

    @classmethod
    def from_state(cls, deck: Deck, data: object) -> "Engine":
        """Rebuild a saved match as an engine of this class; it continues exactly.

        Raises ``StateError`` listing every problem found (``state.restore_state``)."""
        from .state import restore_state

        engine = cls(deck)
        restore_state(engine, data)
        return engine
