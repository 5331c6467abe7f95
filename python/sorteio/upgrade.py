"""Saved matches across deck updates: a save made with one version of a deck loads into the next
one whenever the GDD's guarantees can be kept (README "Determinism and saved matches", rule
decision 12).

A save names its cards, meters and actors by id and holds every counter and the RNG state; the
deck only supplies what comes next. So a new version of the deck (texts, effects, cards added or
removed, parameters other than N) can take over a match: ``adapt`` rewrites the saved state for
the new deck, and ``restore_state`` (state.py) then loads it as usual. What it keeps and decides:

- Cards the match showed keep being "shown" by id (§3.1.2, no repeat), also when the new deck no
  longer has them: such a *retired* card stays in ``played`` (and in the turn's cards) as a card
  that can never be drawn, so every count stays right (slots of the turn, cards of the match) and a
  later version that brings the card back cannot show it twice.
- A card reserved for an obligation of the turn in progress and not yet shown, that the new deck
  removed or that no longer serves its obligation (its effects changed): its slot goes to the
  random draw and an emergency is not spent (§5 "Obrigatória deixa de ser elegível antes de
  aparecer"; rule decision 3). Other obligations it also served (§5 "Mesma carta atende duas
  obrigações") are dropped for this turn and checked again at the next one, as the excess is
  (§3.3).
- Actor and meter obligations of the turn in progress beyond a lowered cap T: the excess is
  dropped and checked again next turn (§3.3 "o excedente é descartado").
- The card on screen (awaiting a choice) that the new deck removed: it was shown, so it keeps its
  slot and stays played, and it is closed unanswered (its options no longer exist). If only its
  number of options changed, the sides already drawn are kept for the options that remain and
  new ones follow in deck order (GDD 05 §3.4: no new draw).
- Refused, naming the deck, meter, actor or parameter: a save of a deck of another ``nome`` (a
  version of a deck keeps its name; saves made before issue 14 do not record it); a save none of
  whose shown cards is in the deck (another deck, not an earlier version of this one); a meter or
  actor the save has a value for and the deck no longer has (removed or renamed), or one the
  deck added (the match has no value for it); a changed N (``cartas_por_turno``) once a turn
  has closed or outgrown it (every turn of a match has N cards, CA-02).

A save that crossed an update records it (``earlier_decks``: the fingerprints of the decks it was
played with before, and ``retired``); its history is then judged only on what does not depend on
the deck (``state._check_history``): the cards shown before the update were drawn under rules
(ano_minimo, drafts, actor functions) the new deck no longer holds.
"""

import copy
from typing import Any, Dict, List, Optional, Tuple

from .i18n import N_, _
from .results import ACTOR, EMERGENCY

FORMAT_UPDATED = "sorteio-match/2"  # a save that crossed a deck update (``earlier_decks``)
MAX_EARLIER_DECKS = 1000  # a match crossing more updates keeps the most recent ones

# The per-card lists of a ``CompiledDeck`` and what a retired card holds in each (never drawn:
# not playable, linked to nothing, no actor, no option). ``tests/test_upgrade.py`` checks that
# every per-card list of the index is named here.
_RETIRED_VALUES = {
    "playable": False, "year_min": 1, "actor": -1, "function": None, "is_attack": False,
    "links": (), "meter_effects": [], "actor_effects": [], "n_options": 0, "_card_json": None,
}


def adapt(engine: Any, data: Dict[str, Any], problems: List[str]) -> List[str]:
    """Rewrite ``data`` (a ``SavedMatch`` dumped as a dict, made with another deck) in place for
    ``engine``'s deck. Problems that cannot be kept are appended to ``problems`` (then ``data``
    is not to be loaded); returns the notes saying what changed, one sentence each (in the run's
    language, ``i18n``; the deck's ids and names)."""
    ix, deck = engine.index, engine.deck
    notes: List[str] = []
    if data.get("deck_name") not in (None, deck.nome):
        problems.append(_("the match was saved with the deck '{saved}' and this deck is "
                          "'{deck}': a save continues only on a version of its own deck (the "
                          "same nome)").format(saved=data["deck_name"], deck=deck.nome))
        return notes
    _same_ids(data["meters"], {m.id: m.nome for m in deck.medidores}, METER_IDS, problems)
    _same_ids(data["satisfaction"], {a.id: a.nome for a in deck.atores}, ACTOR_IDS, problems)
    _same_n(ix.n_slots, data, problems)
    if problems:
        return notes
    known = ix.card_index
    shown = [c for c in data["played"] if c not in {r["id"] for r in data.get("retired") or []}]
    if shown and not any(c in known for c in shown):
        problems.append(_("none of the {count} cards this match showed ('{first}', ...) is in "
                          "this deck: the save was made with another deck").format(
                              count=len(shown), first=shown[0]))
        return notes
    retired = _retired(data, known, notes)
    current = data["current"]
    if current is not None and current["card_id"] not in known:
        notes.append(_("card '{card}', on screen when the match was saved, is no longer in the "
                       "deck: it keeps its slot and is closed unanswered").format(
                           card=current["card_id"]))
        data["current"], data["phase"] = None, "drawing"
    elif current is not None:
        n = ix.n_options[known[current["card_id"]]]
        order = current["option_order"]
        if sorted(order) != list(range(n)):
            current["option_order"] = ([i for i in order if i < n]
                                       + [i for i in range(n) if i not in order])
            notes.append(_("card '{card}' on screen now has {n} options: the sides drawn are "
                           "kept for the options that remain").format(card=current["card_id"],
                                                                     n=n))
    data["pending"] = _pending(engine, data["pending"], notes)
    data["retired"] = retired
    earlier = [fp for fp in data.get("earlier_decks") or [] if fp != data["deck"]]
    data["earlier_decks"] = [*earlier, data["deck"]][-MAX_EARLIER_DECKS:]
    data["deck"], data["deck_name"] = ix.fingerprint, deck.nome
    data["format"] = FORMAT_UPDATED
    return notes


METER_IDS = (N_("meter '{id}' has a value in the save but is not in this deck (removed or "
                "renamed): a match keeps the meters it began with"),
             N_("meter '{name}' ({id}) is new in this deck: the save has no value for it; a new "
                "meter starts with new matches"))
ACTOR_IDS = (N_("actor '{id}' has a value in the save but is not in this deck (removed or "
                "renamed): a match keeps the actors it began with"),
             N_("actor '{name}' ({id}) is new in this deck: the save has no value for it; a new "
                "actor starts with new matches"))
# The kinds of obligation (§3.3) as the notes name them.
KINDS = {"emergency": N_("emergency"), "actor": N_("actor"), "meter": N_("meter")}


def _kind(kind: str) -> str:
    return _(KINDS[kind]) if kind in KINDS else kind


def _same_ids(given: Dict[str, int], deck: Dict[str, str], messages: Tuple[str, str],
              problems: List[str]) -> None:
    removed, added = messages
    for ident in given:
        if ident not in deck:
            problems.append(_(removed).format(id=ident))
    for ident, name in deck.items():
        if ident not in given:
            problems.append(_(added).format(name=name, id=ident))


def _same_n(n: int, data: Dict[str, Any], problems: List[str]) -> None:
    """N (``cartas_por_turno``) of the match, as far as the save tells it: the size of its last
    closed turn when that turn was full, or at least the slots of the turn in progress."""
    last = data["last_turn_end"]
    old: Optional[int] = last["cards"] if last is not None and not last["short"] else None
    if (old is not None and old != n) or data["slot"] > n:
        played_n = old if old is not None else _("at least {n}").format(n=data["slot"])
        problems.append(_("cartas_por_turno: this match was played with N = {played} cards per "
                          "turn and the deck now has N = {n}: every turn of a match has N cards "
                          "(CA-02), so a changed N applies to new matches only").format(
                              played=played_n, n=n))


def _retired(data: Dict[str, Any], known: Dict[str, int], notes: List[str]) -> List[dict]:
    """The played cards the deck no longer has, each ``{"id", "slot"}`` (shown in one of the N
    slots, or outside them as a scene card, §3.5), in showing order."""
    before = {r["id"]: r["slot"] for r in data.get("retired") or []}
    current = data["current"]
    turn = set(data["turn_cards"])
    first = next((i for i, c in enumerate(data["played"]) if c in turn), len(data["played"]))
    out = []
    for i, ident in enumerate(data["played"]):
        if ident in known:
            continue
        if ident in before:
            slot = before[ident]
        elif current is not None and ident == current["card_id"]:
            slot = current["reason"].get("kind") != "scene"
        else:
            # A save made before this update does not say how the card was shown: a card of the
            # turn's slots is a slot card, one shown among them but not in them a scene card;
            # earlier ones are taken as slot cards (scene cards are few).
            slot = ident in turn or i < first
        out.append({"id": ident, "slot": slot})
        if ident not in before and (current is None or ident != current["card_id"]):
            notes.append(_("card '{card}', already shown in this match, is no longer in the "
                           "deck: it stays shown (never drawn again, §3.1.2)").format(card=ident))
    return out


def _pending(engine: Any, pending: List[dict], notes: List[str]) -> List[dict]:
    """The obligations of the turn in progress, kept as built at turn start except where the new
    deck cannot honour them (see the module docstring)."""
    ix = engine.index

    def serves(c: int, k: str, t: str) -> bool:
        table = ix.actor_index if k == ACTOR else ix.meter_index
        return engine._serves(c, k, table[t])

    out = []
    room = ix.cap
    for ob in pending:
        kind, target = ob["kind"], ob["target"]
        if kind != EMERGENCY:
            if room <= 0:
                notes.append(_("the {kind} obligation of '{target}' is beyond the cap T = {cap}: "
                               "dropped, checked again next turn (§3.3)").format(
                                   kind=_kind(kind), target=target, cap=ix.cap))
                continue
            room -= 1
        card = ob["card_id"]
        c = ix.card_index.get(card) if card is not None else None
        if card is not None and (c is None or not serves(c, kind, target)):
            note = (N_("card '{card}', reserved for the {kind} obligation of '{target}', is no "
                       "longer in the deck: its slot goes to the random draw (§5)") if c is None
                    else N_("card '{card}', reserved for the {kind} obligation of '{target}', no "
                            "longer serves it: its slot goes to the random draw (§5)"))
            notes.append(_(note).format(card=card, kind=_kind(kind), target=target))
            card, c = None, None
        merged = []
        for m in ob["merged"]:
            same_meter = m["kind"] != ACTOR and kind != ACTOR and m["target"] == target
            if same_meter or (c is not None and serves(c, m["kind"], m["target"])):
                merged.append(m)
            else:
                notes.append(_("the {kind} obligation of '{target}' was served by card '{card}' "
                               "and no longer is: checked again next turn").format(
                                   kind=_kind(m["kind"]), target=m["target"],
                                   card=ob["card_id"]))
        out.append(dict(ob, card_id=card, merged=merged))
    return out


def with_retired(index: Any, retired: List[dict], earlier_decks: List[str]) -> Any:
    """A copy of the ``CompiledDeck`` ``index`` for one engine, with the ``retired`` cards
    appended after the deck's own (never eligible; shown in a slot or not as ``slot`` says) and
    the match's ``earlier_decks``, which ``state.save_state`` writes back."""
    out = copy.copy(index)
    n = len(index.card_ids)
    ids = [r["id"] for r in retired]
    out.card_ids = index.card_ids + ids
    out.card_index = dict(index.card_index)
    out.card_index.update((ident, n + i) for i, ident in enumerate(ids))
    # Each retired card is a mode of its own: its mode is unknown to this deck (README).
    out.mode_names = index.mode_names + [f"?{ident}" for ident in ids]
    out.mode = index.mode + list(range(len(index.mode_names), len(out.mode_names)))
    out.is_scene = index.is_scene + [not r["slot"] for r in retired]
    for name, value in _RETIRED_VALUES.items():
        setattr(out, name, getattr(index, name) + [value] * len(ids))
    out.retired = [dict(r) for r in retired]
    out.earlier_decks = list(earlier_decks)
    return out


def retired_of(index: Any) -> Tuple[List[dict], List[str]]:
    """``(retired, earlier_decks)`` of an engine's index (both empty for a match that never
    crossed a deck update)."""
    return getattr(index, "retired", []), getattr(index, "earlier_decks", [])
