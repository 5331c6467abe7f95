"""Deck coverage report (``sorteio lint``): can the draw of GDD 06 do its job with this deck?

Static analysis of a valid deck, no simulation (``sorteio simulate`` measures the same things
empirically). It answers:

- playable cards per year against the N-per-turn need (§3.1.3 ``ano_minimo``, §4, §5 "Faltam
  elegíveis": short turns), and the modes available per year against the N slots (§3.4: with fewer
  modes than random slots the mode rule is relaxed);
- cards per mode;
- linked cards per meter and per year (§3.2): can each emergency (§3.3.1, from year 2) and each
  meter obligation (§3.3.3) actually be served?
- actor cards per level function (GDD 07 §3.2, §3.1.4), with the attack card a Furioso actor
  needs (§3.3.2);
- cards that can never be drawn, and why (§3.1: draft, impeachment, a level the actor can never
  reach with this deck's effects);
- draft cards (D-102) that would help cover a gap if approved (not always close it).
"""

from typing import Dict, List

from .compiled import CompiledDeck, compile_deck, paused_gc
from .deck import ATTACK_FUNCTION, ApprovalStatus, CardType, Deck
from .engine import YEARS
from .i18n import N_, _
from .wording import Names

THIN_LINKED = 4  # fewer linked cards than turns in a match: one busy meter can exhaust them
# The report's status codes (stable in --json and the bridge) as the printed tables say them.
STATUS = {"ok": N_("ok"), "short": N_("short"), "depends on actor cards":
          N_("depends on actor cards"), "none": N_("none"), "none before year 3":
          N_("none before year 3"), "actor cards only": N_("actor cards only"), "thin": N_("thin")}


def _reachable_levels(ix: CompiledDeck) -> List[List[int]]:
    """Levels each actor can reach: its starting level, every level above it when some playable
    option raises it, every level below when some option lowers it (effects are clamped 0-100,
    so repeated deltas reach the ends). An over-approximation: it ignores how many cards it takes.
    One pass over the effects for all actors.
    """
    n_actors = len(ix.actor_ids)
    up, down = [False] * n_actors, [False] * n_actors
    for c, options in enumerate(ix.actor_effects):
        if not ix.playable[c]:
            continue
        for effects in options:
            for actor, delta in effects:
                if delta > 0:
                    up[actor] = True
                elif delta < 0:
                    down[actor] = True
    out = []
    for a in range(n_actors):
        s0 = ix.initial_satisfaction[a]
        low = 0 if down[a] else s0
        high = 100 if up[a] else s0
        out.append(sorted({ix.level_of[s] for s in range(low, high + 1)} | {ix.level_of[s0]}))
    return out


def lint_deck(deck: Deck) -> dict:
    """The coverage report as JSON-safe data (see the module docstring for what it checks).

    Rows about modes, meters and actors carry the id and the display name (``nome``); the
    ``problems`` sentences use the names (issue 8: people read names, files hold ids)."""
    # Without the cyclic collector (it makes no cycles): right after a big deck is loaded, the
    # first full collection lands here otherwise, a pass over the whole deck's objects (1.0 of
    # the 1.2 s this took on 30,000 cards).
    with paused_gc():
        return _lint(deck)


def _lint(deck: Deck) -> dict:
    ix = compile_deck(deck)
    names = Names.of(deck)
    n_cards = len(ix.card_ids)
    slots = ix.n_slots
    playable = [c for c in range(n_cards) if ix.playable[c]]
    common = [c for c in playable if ix.actor[c] < 0]
    problems: List[str] = []

    # Actor cards for a level their actor never reaches (§3.1.4) cannot fill a slot.
    reach_levels = _reachable_levels(ix)
    reachable_fns = [{ix.level_function[li] for li in reach} for reach in reach_levels]
    usable = [c for c in playable if ix.actor[c] < 0 or ix.function[c] in
              reachable_fns[ix.actor[c]]]

    # Cards per year vs the need.
    years = []
    for y in range(1, YEARS + 1):
        common_y = [c for c in common if ix.year_min[c] <= y]
        actor_y = sum(1 for c in usable if ix.actor[c] >= 0 and ix.year_min[c] <= y)
        need = slots * y
        modes_y = len({ix.mode[c] for c in playable if ix.year_min[c] <= y})
        if len(common_y) >= need:
            status = "ok"
        elif len(common_y) + actor_y >= need:
            status = "depends on actor cards"
        else:
            status = "short"
            problems.append(_("year {year}: {cards} playable cards for {need} slots up to this "
                              "year: turns will end short (§5)").format(
                                  year=y, cards=len(common_y) + actor_y, need=need))
        years.append({
            "year": y,
            "new": sum(1 for c in playable if ix.year_min[c] == y),
            "common_available": len(common_y),
            "actor_available": actor_y,
            "need": need,
            "modes": modes_y,
            "status": status,
        })
        if modes_y < slots:
            problems.append(_("year {year}: {modes} modes for {slots} slots: the one-per-mode "
                              "rule will be relaxed in full turns (§3.4)").format(
                                  year=y, modes=modes_y, slots=slots))

    # One pass over the cards (not modes x cards: a deck may have thousands of modes).
    mode_years = [[0] * YEARS for _ in ix.mode_names]
    for c in playable:
        mode_years[ix.mode[c]][ix.year_min[c] - 1] += 1
    modes = [{"mode": name, "nome": names.mode(name), "cards": sum(mode_years[md]),
              "by_year": mode_years[md]}
             for md, name in enumerate(ix.mode_names)]

    # Linked cards per meter and year (§3.2): emergencies ask from year 2 (§5, Ano 1).
    meters = []
    for m, meter in enumerate(ix.meter_ids):
        label = names.meter(meter)
        linked = ix.linked[m]
        by_year = [sum(1 for c in linked if ix.year_min[c] <= y) for y in range(1, YEARS + 1)]
        common_by_year = [sum(1 for c in linked if ix.year_min[c] <= y and ix.actor[c] < 0)
                          for y in range(1, YEARS + 1)]
        if not linked:
            status = "none"
            problems.append(_("meter {meter}: no playable linked card; its emergencies and "
                              "meter obligations go to the random draw (§5)").format(meter=label))
        elif common_by_year[1] == 0:
            status = "none before year 3" if common_by_year[2] else "actor cards only"
            problems.append(_("meter {meter}: no common linked card in year 2, when the first "
                              "emergency can come (§3.3.1)").format(meter=label))
        elif by_year[-1] < THIN_LINKED:
            status = "thin"
            problems.append(_("meter {meter}: only {count} linked card(s); one meter in crisis "
                              "can use them up").format(meter=label, count=by_year[-1]))
        else:
            status = "ok"
        meters.append({"meter": meter, "nome": label, "linked": len(linked), "by_year": by_year,
                       "common_by_year": common_by_year, "status": status})

    # Actor cards per level function (GDD 07 §3.2).
    functions = list(dict.fromkeys(ix.level_function))
    actor_counts: List[Dict[str, int]] = [dict.fromkeys(functions, 0) for _ in ix.actor_ids]
    unreachable_cards: Dict[int, str] = {}
    for c in playable:  # one pass over the cards, not actors x cards
        a = ix.actor[c]
        if a < 0:
            continue
        fn = ix.function[c]
        if fn in actor_counts[a]:
            actor_counts[a][fn] += 1
        if fn not in reachable_fns[a]:
            unreachable_cards[c] = _("actor {actor} never reaches a level calling for "
                                     "'{function}' with this deck's effects").format(
                                         actor=names.actor(ix.actor_ids[a]), function=fn)
    actors = []
    for a, actor in enumerate(ix.actor_ids):
        label = names.actor(actor)
        counts = actor_counts[a]
        reach = reach_levels[a]
        missing = [fn for fn in functions if not counts[fn]]
        unreachable = [ix.level_ids[li] for li in range(len(ix.level_ids)) if li not in reach]
        if not counts.get(ATTACK_FUNCTION):
            problems.append(_("actor {actor}: no playable attack card; when Furioso its "
                              "mandatory slot goes to the random draw (§3.3.2, §5)").format(
                                  actor=label))
        actors.append({"actor": actor, "nome": label, "functions": counts, "missing": missing,
                       "unreachable_levels": unreachable,
                       "unreachable_level_names": [names.level(lv) for lv in unreachable]})

    never = []
    for c, card in enumerate(deck.cartas):
        reason = None
        if card.aprendizado.status != ApprovalStatus.APPROVED:
            reason = _("draft: Aprendizado not approved (§3.1.1, D-102)")
        elif card.tipo == CardType.IMPEACHMENT:
            reason = _("impeachment card: only in the scene, never in the draw (§3.1.5)")
        elif c in unreachable_cards:
            reason = unreachable_cards[c] + " (§3.1.4)"
        if reason is not None:
            never.append({"card": card.id, "reason": reason})

    # Drafts that would help with a gap if approved; one draft rarely closes a gap on its own.
    gaps_meters = {m["meter"] for m in meters if m["status"] != "ok"}
    short_years = {y["year"] for y in years if y["status"] != "ok"}
    no_attack = {a["actor"] for a in actors if ATTACK_FUNCTION in a["missing"]}
    drafts = []
    for c, card in enumerate(deck.cartas):
        if card.aprendizado.status == ApprovalStatus.APPROVED or card.tipo == CardType.IMPEACHMENT:
            continue
        covers = [_("meter {meter}").format(meter=names.meter(ix.meter_ids[m]))
                  for m in ix.links[c] if ix.meter_ids[m] in gaps_meters]
        year = card.pre_requisitos.ano_minimo
        covers += [_("year {year} slots").format(year=y) for y in sorted(short_years) if year <= y]
        if card.ator in no_attack and card.funcao == ATTACK_FUNCTION:
            covers.append(_("attack of {target}").format(target=names.actor(card.ator)))
        if covers:
            drafts.append({"card": card.id, "would_cover": covers})
    if drafts:
        problems.append(_("{count} draft card(s) would help cover a gap if approved: {cards}"
                          ).format(count=len(drafts), cards=", ".join(d["card"] for d in drafts)))

    return {
        "deck": deck.nome,
        "parameters": deck.parametros.model_dump(),
        "cards": n_cards,
        "playable": len(playable),
        "slots_per_match": slots * YEARS,
        "years": years,
        "modes": modes,
        "meters": meters,
        "actors": actors,
        "never_drawn": never,
        "drafts_blocking": drafts,
        "problems": problems,
    }


def print_report(report: dict, source: str, console) -> None:
    """The report as rich tables on ``console``, with display names. Every cell and line is a
    ``Text`` or a plain string printed without markup: a deck's ids and names are user data."""
    from rich.table import Table
    from rich.text import Text

    def flag(text: str, bad: bool) -> Text:
        return Text(_(STATUS[text]) if text in STATUS else text, style="yellow" if bad else "")

    def keep_names(table: Table, names: List[str]) -> None:
        # In a narrow terminal a name wraps between its words but no word is cut ("Governab…").
        words = [len(w) for n in names for w in n.split()]
        table.columns[0].min_width = min(30, max([*words, 4]))

    p = report["parameters"]
    console.print(Text.assemble((source, "bold"), ": ", _(
        "{playable} playable of {cards} cards for {slots} slots ({per_turn} per turn)").format(
            playable=report["playable"], cards=report["cards"], slots=report["slots_per_match"],
            per_turn=p["cartas_por_turno"])), soft_wrap=True)
    t = Table(_("year"), _("new"), _("common up to the year"), _("actor up to the year"),
              _("needed"), _("modes"), _("status"),
              title=_("Playable cards per year (§3.1.3, §5)"))
    for y in report["years"]:
        t.add_row(str(y["year"]), str(y["new"]), str(y["common_available"]),
                  str(y["actor_available"]), str(y["need"]), str(y["modes"]),
                  flag(y["status"], y["status"] != "ok"))
    console.print(t)
    years = [_("year {year}").format(year=y) for y in range(1, YEARS + 1)]
    t = Table(_("mode"), _("cards"), *years, title=_("Cards per mode (§3.4)"))
    keep_names(t, [m.get("nome", m["mode"]) for m in report["modes"]])
    for m in report["modes"]:
        t.add_row(Text(m.get("nome", m["mode"])), str(m["cards"]), *(str(v) for v in m["by_year"]))
    console.print(t)
    t = Table(_("meter"), _("linked"),
              *(_("up to year {year}").format(year=y) for y in range(1, YEARS + 1)), _("status"),
              title=_("Linked cards per meter (§3.2, §3.3.1, §3.3.3)"))
    keep_names(t, [m.get("nome", m["meter"]) for m in report["meters"]])
    for m in report["meters"]:
        t.add_row(Text(m.get("nome", m["meter"])), str(m["linked"]),
                  *(str(v) for v in m["by_year"]), flag(m["status"], m["status"] != "ok"))
    console.print(t)
    if report["actors"]:
        fns = list(report["actors"][0]["functions"])
        t = Table(_("actor"), *fns, _("levels out of reach"),
                  title=_("Actor cards per function (GDD 07 §3.2)"))
        keep_names(t, [a.get("nome", a["actor"]) for a in report["actors"]])
        for a in report["actors"]:
            levels = a.get("unreachable_level_names", a["unreachable_levels"])
            t.add_row(Text(a.get("nome", a["actor"])),
                      *(flag(str(a["functions"][f]), not a["functions"][f]) for f in fns),
                      Text(", ".join(levels) or "-"))
        console.print(t)
    if report["never_drawn"]:
        t = Table(_("card"), _("why"), title=_("Never drawn"))
        for n in report["never_drawn"]:
            t.add_row(Text(n["card"]), Text(n["reason"]))
        console.print(t)
    if report["drafts_blocking"]:
        t = Table(_("draft"), _("would help cover"),
                  title=_("Drafts that would help cover gaps if approved (D-102)"))
        for d in report["drafts_blocking"]:
            t.add_row(Text(d["card"]), Text(", ".join(d["would_cover"])))
        console.print(t)
    if report["problems"]:
        console.print(Text(_("Problems:"), style="bold"))
        for line in report["problems"]:
            console.print(Text.assemble("  ", ("•", "yellow"), " ", line), soft_wrap=True)
    else:
        console.print(Text(_("No coverage problem."), style="green"))
