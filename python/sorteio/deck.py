"""Deck models: the designer's data, validated by pydantic v2 (GDD 06 §3, §7; GDD 05; GDD 07).

A deck is one JSON file. Field names follow the GDD's Portuguese vocabulary (see the glossary in
README.md); every model forbids unknown fields so a typo is an error, not a silent default.

Shapes and units:
- meters (``medidores``): 8 in the GDD, listed in the GDD 01 table order, which breaks ties (§3.3);
  values are integers 0-100; ``inicial`` is the calibration value, 1-100 (0 would end the match).
- actors (``atores``): satisfaction 0-100, 50 at the start (§5, Ano 1).
- levels (``niveis``): satisfaction bands covering 0-100 without gaps; each names the card function
  (``funcao``) that level calls for (GDD 07 §3.2); the level calling for ``ataque`` is Furioso.
- cards (``cartas``): ``opcoes`` with ``efeitos`` (meter id -> delta) and ``efeitos_atores``
  (actor id -> delta); ``pre_requisitos.ano_minimo`` 1-4 (default 1, §3.1.3).
- parameters (``parametros``): the §7 tuning parameters, each limited to its safe range.
- modes (``modos``, optional): display names of the cards' ``modo`` ids (``{"id", "nome"}``). When
  given, it is the deck's list of modes: a card whose ``modo`` it does not declare is an error (a
  typo would otherwise make a new mode and change the one-per-mode rule, §3.4). When absent, each
  mode is shown by its id. Names are for people only: the rules count modes by id.
"""

from enum import Enum
from typing import Dict, List, NamedTuple, Optional

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator, model_validator
from typing_extensions import Annotated

YEARS = 4
ATTACK_FUNCTION = "ataque"

# Integers are strict: "55" or true in a deck is a typo to report, not a number to guess.
Int = StrictInt
# An effect moves a 0-100 value, so a delta beyond +-100 can only be a mistake.
Delta = Annotated[StrictInt, Field(ge=-100, le=100)]
# Ids are matched exactly, so blank ids or ids with leading/trailing spaces are refused.
Ident = Annotated[str, Field(min_length=1, pattern=r"^\S(.*\S)?$")]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CardType(str, Enum):
    """``tipo`` of a card (GDD 05). Impeachment cards only appear in the scene (§3.1.5)."""

    COMMON = "comum"
    ACTOR = "ator"
    IMPEACHMENT = "impeachment"


class ApprovalStatus(str, Enum):
    """Status of a card's learning text (D-102): only ``aprovado`` cards are drawn (§3.1.1)."""

    APPROVED = "aprovado"
    DRAFT = "rascunho"


class Parameters(_Strict):
    """GDD 06 §7 tuning parameters; bounds are the §7 safe ranges ("Faixa segura")."""

    cartas_por_turno: Int = Field(7, ge=6, le=8, description="N: cards per turn (§4)")
    teto_obrigatorias: Int = Field(3, ge=2, le=4, description="T: cap of mandatory slots (§4)")
    limite_medidor: Int = Field(
        30, ge=25, le=35, description="a meter below this pulls a linked card (§3.3.3)"
    )
    limite_emergencia: Int = Field(
        10, ge=0, le=24, description="a meter closing at or below this asks an emergency (§3.3.1)"
    )
    limite_por_modo: Int = Field(1, ge=1, le=2, description="random slots per mode a turn (§3.4)")


class Meter(_Strict):
    """A meter (medidor, GDD 01). ``inicial``: calibration value, 1-100."""

    id: Ident
    nome: str = Field(min_length=1)
    inicial: Int = Field(50, ge=1, le=100)


class Mode(_Strict):
    """A mode (modo, GDD 05) and its display name (``nome``), e.g. ``saude`` -> ``Saúde``."""

    id: Ident
    nome: str = Field(min_length=1)


class Level(_Strict):
    """A satisfaction band of an actor (GDD 07 §3.2): ``minimo``..``maximo`` inclusive, 0-100."""

    id: Ident
    nome: str = Field(min_length=1)
    minimo: Int = Field(ge=0, le=100)
    maximo: Int = Field(ge=0, le=100)
    funcao: Ident = Field(description="card function this level calls for")

    @model_validator(mode="after")
    def _ordered(self) -> "Level":
        if self.minimo > self.maximo:
            raise ValueError(f"minimo {self.minimo} is above maximo {self.maximo}")
        return self


class Actor(_Strict):
    """An interest group (ator, GDD 07); satisfaction starts at ``satisfacao_inicial`` (50)."""

    id: Ident
    nome: str = Field(min_length=1)
    satisfacao_inicial: Int = Field(50, ge=0, le=100)


class Prerequisites(_Strict):
    """``pre_requisitos``: ``ano_minimo`` is the only one (§3.1.3), 1-4, default 1."""

    ano_minimo: Int = Field(1, ge=1, le=YEARS)


class Learning(_Strict):
    """The card's learning text (Aprendizado, D-102) and its approval status."""

    status: ApprovalStatus = ApprovalStatus.APPROVED
    texto: str = ""


class Option(_Strict):
    """One option of a card. Deltas are integers added to 0-100 values, then clamped."""

    texto: str = Field(min_length=1)
    efeitos: Dict[str, Delta] = Field(default_factory=dict, description="meter id -> delta")
    efeitos_atores: Dict[str, Delta] = Field(default_factory=dict,
                                             description="actor id -> delta")


class Card(_Strict):
    """A card (GDD 05). Actor cards (``tipo: ator``) name their ``ator`` and ``funcao``."""

    id: Ident
    titulo: str = Field(min_length=1)
    texto: str = ""
    modo: Ident
    tipo: CardType = CardType.COMMON
    aprendizado: Learning = Field(default_factory=Learning)
    pre_requisitos: Prerequisites = Field(default_factory=Prerequisites)
    ator: Optional[Ident] = None
    funcao: Optional[Ident] = None
    opcoes: List[Option] = Field(min_length=1)

    @property
    def playable(self) -> bool:
        """Approved and not an impeachment card: can ever be drawn (§3.1.1, §3.1.5)."""
        return self.aprendizado.status == ApprovalStatus.APPROVED and (
            self.tipo != CardType.IMPEACHMENT
        )

    def linked_to(self, meter_id: str) -> bool:
        """§3.2: linked to a meter when some option has a positive effect on it."""
        return any(option.efeitos.get(meter_id, 0) > 0 for option in self.opcoes)


class Deck(_Strict):
    """A whole deck. Cross-references (ids, effects, actor functions) are checked here.

    Raises ``pydantic.ValidationError`` (wrapped as ``DeckError`` by ``load_deck``) naming the
    card index and field, e.g. ``cartas.3.opcoes.0.efeitos``.
    """

    nome: str = "baralho"
    parametros: Parameters = Field(default_factory=Parameters)
    medidores: List[Meter] = Field(min_length=1)
    niveis: List[Level] = Field(min_length=1)
    atores: List[Actor] = Field(default_factory=list)
    cartas: List[Card] = Field(default_factory=list)
    modos: List[Mode] = Field(
        default_factory=list,
        description="display names of the cards' modes; when given, every card's modo must be "
                    "one of them",
    )

    @field_validator("niveis")
    @classmethod
    def _bands_cover_0_100(cls, levels: List[Level]) -> List[Level]:
        bands = sorted(levels, key=lambda level: level.minimo)
        expected = 0
        for level in bands:
            if level.minimo != expected:
                raise ValueError(
                    f"satisfaction bands must cover 0-100 without gaps or overlaps: level "
                    f"'{level.id}' starts at {level.minimo}, expected {expected}"
                )
            expected = level.maximo + 1
        if expected != 101:
            raise ValueError(f"satisfaction bands end at {expected - 1}, expected 100")
        attack = [level.id for level in levels if level.funcao == ATTACK_FUNCTION]
        if len(attack) != 1:
            raise ValueError(
                f"exactly one level must call for function '{ATTACK_FUNCTION}' (Furioso); "
                f"found {len(attack)}"
            )
        return levels

    @model_validator(mode="after")
    def _cross_references(self) -> "Deck":
        issues = reference_issues(self)
        if issues:
            raise DeckReferenceError(issues)
        return self

    def level_of(self, satisfaction: int) -> Level:
        """The level (GDD 07 §3.2) whose band holds ``satisfaction`` (0-100)."""
        for level in self.niveis:
            if level.minimo <= satisfaction <= level.maximo:
                return level
        raise ValueError(f"satisfaction {satisfaction} outside 0-100")


class Issue(NamedTuple):
    """One problem found in a deck: the card it is about (or None), the field path, the message."""

    card_id: Optional[str]
    field: str
    message: str


class DeckReferenceError(ValueError):
    """Raised inside validation when ids do not resolve; carries every ``Issue`` found."""

    def __init__(self, issues: List[Issue]) -> None:
        super().__init__("; ".join(f"{i.field}: {i.message}" for i in issues))
        self.issues = issues


def reference_issues(deck: "Deck") -> List[Issue]:
    """Cross-reference errors of a structurally valid deck (ids, effects, actor functions)."""
    issues: List[Issue] = []
    for field, ids in (
        ("medidores", [m.id for m in deck.medidores]),
        ("niveis", [lv.id for lv in deck.niveis]),
        ("atores", [a.id for a in deck.atores]),
        ("cartas", [c.id for c in deck.cartas]),
        ("modos", [md.id for md in deck.modos]),
    ):
        seen = set()
        for i, ident in enumerate(ids):
            if ident in seen:
                card = ident if field == "cartas" else None
                issues.append(Issue(card, f"{field}.{i}.id", f"duplicate id '{ident}'"))
            seen.add(ident)
    meters = {m.id for m in deck.medidores}
    actors = {a.id for a in deck.atores}
    functions = sorted({lv.funcao for lv in deck.niveis})
    declared = [md.id for md in deck.modos]
    for i, card in enumerate(deck.cartas):
        here = f"cartas.{i}"
        if declared and card.modo not in declared:
            issues.append(Issue(card.id, f"{here}.modo",
                                f"unknown mode '{card.modo}' (modos declares: "
                                f"{', '.join(declared)})"))
        for field in ("ator", "funcao"):
            given = getattr(card, field) is not None
            if card.tipo == CardType.ACTOR and not given:
                issues.append(Issue(card.id, f"{here}.{field}",
                                    f"an actor card (tipo 'ator') needs '{field}'"))
            elif card.tipo != CardType.ACTOR and given:
                issues.append(Issue(card.id, f"{here}.{field}",
                                    f"only actor cards (tipo 'ator') take '{field}'"))
        if card.ator is not None and card.ator not in actors:
            issues.append(Issue(card.id, f"{here}.ator", f"unknown actor '{card.ator}'"))
        if card.funcao is not None and card.funcao not in functions:
            issues.append(
                Issue(
                    card.id,
                    f"{here}.funcao",
                    f"no level calls for function '{card.funcao}' "
                    f"(levels call for: {', '.join(functions)})",
                )
            )
        for j, option in enumerate(card.opcoes):
            for meter in option.efeitos:
                if meter not in meters:
                    issues.append(
                        Issue(card.id, f"{here}.opcoes.{j}.efeitos", f"unknown meter '{meter}'")
                    )
            for actor in option.efeitos_atores:
                if actor not in actors:
                    issues.append(
                        Issue(
                            card.id,
                            f"{here}.opcoes.{j}.efeitos_atores",
                            f"unknown actor '{actor}'",
                        )
                    )
    return issues
