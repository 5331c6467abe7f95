"""Designers' situations: a match state written by hand (a small JSON file), to preview or
simulate the draw from it (issue 14). GDD 06 §4's worked example is the sample
(``situations/secao4.json``: "início do Ano 3; Dignidade fechou em 8; Latifundiários Furiosos e
Caixa em 25").

A situation is the start of a turn (phase ``turn_start``): the year, the meters, the values they
closed the previous turn at (which call emergencies, §3.3.1), the actors' satisfaction, the cards
already shown (never drawn again, §3.1.2), the emergencies already spent and the actors whose
attack already came out (§3.3.2). Unlike a saved match it need not fit a history a match played:
it is what a designer asks "what does the draw do here?" about. Meters and actors it leaves out
start at the deck's ``inicial`` / ``satisfacao_inicial``. Field names are the deck's (Portuguese,
README glossary); ``sorteio schema --situation`` prints the JSON Schema.
"""

from pathlib import Path
from typing import Any, Dict, List, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError
from typing_extensions import Annotated

from .deck import Deck
from .engine import Engine
from .errors import SorteioError
from .i18n import N_, _
from .jsonfile import loads, printable, read_text
from .phases import YEARS
from .validation_text import error_text

SITUATIONS = Path(__file__).resolve().parent / "situations"
Value = Annotated[StrictInt, Field(ge=0, le=100)]


class SituationError(SorteioError):
    """A situation file that cannot be used: every problem, each naming the file and field."""


class Situation(BaseModel):
    """The start of turn ``ano`` as a designer writes it. Values are 0-100 (GDD 01, GDD 07)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    schema_ref: Optional[str] = Field(None, alias="$schema", exclude=True,
                                      description="JSON Schema of this file, for editors")
    nome: str = Field("situação", description="what the situation shows, for people")
    descricao: str = ""
    ano: StrictInt = Field(ge=1, le=YEARS, description="the year whose turn is about to start")
    medidores: Dict[str, Value] = Field(
        default_factory=dict, description="meter id -> value now (missing: the deck's inicial)")
    fechamento_anterior: Dict[str, Value] = Field(
        default_factory=dict,
        description="meter id -> value it closed the previous turn at, which calls emergencies "
                    "(§3.3.1; missing: its value in medidores). Not in year 1 (no closing, §5)")
    satisfacao: Dict[str, Value] = Field(
        default_factory=dict,
        description="actor id -> satisfaction (missing: the deck's satisfacao_inicial)")
    cartas_jogadas: List[str] = Field(
        default_factory=list, description="card ids already shown: never drawn again (§3.1.2)")
    emergencias_gastas: List[str] = Field(
        default_factory=list, description="meter ids whose emergency was already spent (§3.3.1)")
    ataques_saidos: List[str] = Field(
        default_factory=list,
        description="actor ids whose attack card already came out (§3.3.2); an attack card in "
                    "cartas_jogadas counts too")


def read_situation(path: Union[str, Path]) -> Situation:
    """Read and validate a situation file (``jsonfile``: bounded, UTF-8, duplicate keys refused).
    Raises ``SituationError`` naming the file and each field in error."""
    source = str(path)
    data, problems = loads(read_text(source), source)
    lines = [f"{source}: {'.'.join(str(p) for p in pr.loc) or '(file)'}: {pr.message}"
             for pr in problems]
    if not lines:
        if isinstance(data, dict) and "format" in data and "rng" in data:
            lines.append(_("{file}: this is a saved match, not a situation (give it with "
                           "--state)").format(file=source))
        else:
            try:
                return Situation.model_validate(data)
            except ValidationError as exc:
                lines += [f"{source}: {'.'.join(str(p) for p in e['loc']) or '(file)'}: "
                          f"{error_text(e)}" for e in exc.errors(include_url=False)]
    raise SituationError("\n".join(printable(line) for line in lines))


def check_situation(situation: Situation, deck: Deck, source: str) -> None:
    """Refuse a situation that names what the deck does not have, or that no turn can start in:
    raises ``SituationError`` with every problem, each naming the file and field."""
    problems: List[str] = []
    meters = {m.id for m in deck.medidores}
    actors = {a.id for a in deck.atores}
    cards = {c.id: c for c in deck.cartas}
    unknown_meter = N_("unknown meter '{id}' (the deck has: {known})")
    unknown_actor = N_("unknown actor '{id}' (the deck has: {known})")
    for field, given, known, unknown in (
            ("medidores", situation.medidores, meters, unknown_meter),
            ("fechamento_anterior", situation.fechamento_anterior, meters, unknown_meter),
            ("satisfacao", situation.satisfacao, actors, unknown_actor),
            ("emergencias_gastas", situation.emergencias_gastas, meters, unknown_meter),
            ("ataques_saidos", situation.ataques_saidos, actors, unknown_actor)):
        for ident in given:
            if ident not in known:
                problems.append(f"{field}.{ident}: " + _(unknown).format(
                    id=ident, known=", ".join(sorted(known))))
    for ident, value in situation.medidores.items():
        if value == 0:
            problems.append(f"medidores.{ident}: " + _(
                "0 ends the match at once (§5 'Fim imediato'); no turn starts there"))
    if situation.ano == 1 and situation.fechamento_anterior:
        problems.append("fechamento_anterior: " + _("year 1 has no previous closing (§5 'Ano 1')"))
    seen = set()
    for i, ident in enumerate(situation.cartas_jogadas):
        card = cards.get(ident)
        if card is None:
            problems.append(f"cartas_jogadas.{i}: " + _("unknown card '{id}'").format(id=ident))
        elif ident in seen:
            problems.append(f"cartas_jogadas.{i}: " + _(
                "card '{id}' is listed twice (§3.1.2)").format(id=ident))
        elif card.pre_requisitos.ano_minimo > situation.ano:
            problems.append(f"cartas_jogadas.{i}: " + _(
                "card '{id}' has ano_minimo {year}, after year {now} (§3.1.3): it cannot have "
                "been shown yet").format(id=ident, year=card.pre_requisitos.ano_minimo,
                                         now=situation.ano))
        seen.add(ident)
    if problems:
        raise SituationError("\n".join(printable(f"{source}: {p}") for p in problems))


def situation_engine(deck: Deck, situation: Situation, seed: int = 0,
                     engine_cls: Any = Engine) -> Any:
    """An engine (``engine_cls``, the oracle by default) at the start of the situation's turn,
    phase ``turn_start``, its draw seeded with ``seed``. Call ``check_situation`` first."""
    engine = engine_cls(deck, seed)
    ix = engine.index
    engine.year = situation.ano
    for ident, value in situation.medidores.items():
        engine.meters[ix.meter_index[ident]] = value
    for ident, value in situation.satisfacao.items():
        engine.satisfaction[ix.actor_index[ident]] = value
    if situation.ano > 1:
        engine.last_closing = list(engine.meters)
        for ident, value in situation.fechamento_anterior.items():
            engine.last_closing[ix.meter_index[ident]] = value
    for ident in situation.cartas_jogadas:
        c = ix.card_index[ident]
        engine.played.append(c)
        engine.is_played[c] = True
        if ix.is_attack[c]:
            engine.attacked[ix.actor[c]] = True
    for ident in situation.ataques_saidos:
        engine.attacked[ix.actor_index[ident]] = True
    for ident in situation.emergencias_gastas:
        engine.emergency_spent[ix.meter_index[ident]] = True
    return engine


def load_situation(path: Union[str, Path], deck: Deck) -> Situation:
    """``read_situation`` and ``check_situation`` against ``deck`` in one call. A bare name
    (``secao4``) is a sample shipped in ``sorteio/situations/``."""
    source = str(path)
    if "/" not in source and "\\" not in source and not source.endswith(".json"):
        sample = SITUATIONS / f"{source}.json"
        if sample.is_file():
            path = sample
    situation = read_situation(path)
    check_situation(situation, deck, str(path))
    return situation


def situation_schema() -> Dict[str, Any]:
    """The situation file's JSON Schema (``sorteio schema --situation``)."""
    return Situation.model_json_schema(by_alias=True)
