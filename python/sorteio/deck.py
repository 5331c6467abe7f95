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
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator, model_validator
from typing_extensions import Annotated

from .i18n import N_, _

YEARS = 4
ATTACK_FUNCTION = "ataque"

# Integers are strict: "55" or true in a deck is a typo to report, not a number to guess.
Int = StrictInt

# Every bounded number of a deck: field name -> (low, high, why). The models take their bounds
# from here and the loader's "out of range" errors quote the range and the reason.
RANGES: Dict[str, Tuple[int, int, str]] = {
    "cartas_por_turno": (6, 8, N_("N, cards per turn: the GDD 06 §7 safe range")),
    "teto_obrigatorias": (2, 4, N_("T, the cap of mandatory slots: the GDD 06 §7 safe range")),
    "limite_medidor": (25, 35, N_("a meter below it pulls a linked card: the GDD 06 §7 safe "
                                  "range")),
    "limite_emergencia": (0, 24, N_("a meter closing at or below it asks an emergency "
                                    "(§3.3.1); it stays under the meter limit, 25 at least")),
    "limite_por_modo": (1, 2, N_("random slots per mode in a turn: the GDD 06 §7 safe range")),
    "inicial": (1, 100, N_("meters live on 0-100 and a meter at 0 ends the match at once, "
                           "§5 'Fim imediato'")),
    "minimo": (0, 100, N_("satisfaction lives on 0-100, GDD 07 §3.2")),
    "maximo": (0, 100, N_("satisfaction lives on 0-100, GDD 07 §3.2")),
    "satisfacao_inicial": (0, 100, N_("satisfaction lives on 0-100, GDD 07")),
    "ano_minimo": (1, 4, N_("a mandate has 4 years, §3.1.3")),
    "efeitos": (-100, 100, N_("an effect moves a meter that lives on 0-100, so a change beyond "
                              "100 either way can only be a mistake")),
    "efeitos_atores": (-100, 100, N_("an effect moves a satisfaction that lives on 0-100, so a "
                                     "change beyond 100 either way can only be a mistake")),
}


def _bounded(name: str, default: Any = ..., **extra: Any) -> Any:
    low, high, _why = RANGES[name]
    return Field(default, ge=low, le=high, **extra)


Delta = Annotated[StrictInt, _bounded("efeitos")]
ActorDelta = Annotated[StrictInt, _bounded("efeitos_atores")]
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

    cartas_por_turno: Int = _bounded("cartas_por_turno", 7, description="N: cards per turn (§4)")
    teto_obrigatorias: Int = _bounded("teto_obrigatorias", 3,
                                      description="T: cap of mandatory slots (§4)")
    limite_medidor: Int = _bounded("limite_medidor", 30,
                                   description="a meter below this pulls a linked card (§3.3.3)")
    limite_emergencia: Int = _bounded(
        "limite_emergencia", 10,
        description="a meter closing at or below this asks an emergency (§3.3.1)")
    limite_por_modo: Int = _bounded("limite_por_modo", 1,
                                    description="random slots per mode a turn (§3.4)")


class Meter(_Strict):
    """A meter (medidor, GDD 01). ``inicial``: calibration value, 1-100."""

    id: Ident
    nome: str = Field(min_length=1)
    inicial: Int = _bounded("inicial", 50)


class Mode(_Strict):
    """A mode (modo, GDD 05) and its display name (``nome``), e.g. ``saude`` -> ``Saúde``."""

    id: Ident
    nome: str = Field(min_length=1)


class Level(_Strict):
    """A satisfaction band of an actor (GDD 07 §3.2): ``minimo``..``maximo`` inclusive, 0-100."""

    id: Ident
    nome: str = Field(min_length=1)
    minimo: Int = _bounded("minimo")
    maximo: Int = _bounded("maximo")
    funcao: Ident = Field(description="card function this level calls for")

    @model_validator(mode="after")
    def _ordered(self) -> "Level":
        if self.minimo > self.maximo:
            raise ValueError(_("minimo {minimo} is above maximo {maximo}").format(
                minimo=self.minimo, maximo=self.maximo))
        return self


class Actor(_Strict):
    """An interest group (ator, GDD 07); satisfaction starts at ``satisfacao_inicial`` (50)."""

    id: Ident
    nome: str = Field(min_length=1)
    satisfacao_inicial: Int = _bounded("satisfacao_inicial", 50)


class Prerequisites(_Strict):
    """``pre_requisitos``: ``ano_minimo`` is the only one (§3.1.3), 1-4, default 1."""

    ano_minimo: Int = _bounded("ano_minimo", 1)


class Learning(_Strict):
    """The card's learning text (Aprendizado, D-102) and its approval status."""

    status: ApprovalStatus = ApprovalStatus.APPROVED
    texto: str = ""


class Option(_Strict):
    """One option of a card. Deltas are integers added to 0-100 values, then clamped."""

    texto: str = Field(min_length=1)
    efeitos: Dict[str, Delta] = Field(default_factory=dict, description="meter id -> delta")
    efeitos_atores: Dict[str, ActorDelta] = Field(default_factory=dict,
                                             description="actor id -> delta")


MAX_CARD_CHARS = 100_000  # a card's text, ids and effects (see Card._fits_one_bridge_frame)


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

    @model_validator(mode="after")
    def _fits_one_bridge_frame(self) -> "Card":
        # A drawn card travels whole in one bridge reply (1 MiB, addons/sorteio/README.md
        # "Protocol"): bound its text so even 6-byte JSON escapes of every character fit.
        size = sum(len(text) for text in (self.id, self.titulo, self.texto, self.modo,
                                          self.aprendizado.texto, self.ator or "",
                                          self.funcao or ""))
        for option in self.opcoes:
            size += len(option.texto) + sum(len(k) + 12 for k in option.efeitos)
            size += sum(len(k) + 12 for k in option.efeitos_atores)
        if size > MAX_CARD_CHARS:
            raise ValueError(_(
                "the card holds {size:,} characters of text, ids and effects; at most {most:,}, "
                "so that a drawn card fits in one 1 MiB reply of the Godot bridge").format(
                    size=size, most=MAX_CARD_CHARS))
        return self

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

    # The JSON Schema an editor attaches to the file (``sorteio schema``); not part of the deck:
    # excluded from dumps, so it changes neither the fingerprint nor saved matches.
    schema_ref: Optional[str] = Field(None, alias="$schema", exclude=True,
                                      description="JSON Schema of this file, for editors")
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
                raise ValueError(_(
                    "satisfaction bands must cover 0-100 without gaps or overlaps: level "
                    "'{level}' starts at {start}, expected {expected}").format(
                        level=level.id, start=level.minimo, expected=expected))
            expected = level.maximo + 1
        if expected != 101:
            raise ValueError(_("satisfaction bands end at {end}, expected 100").format(
                end=expected - 1))
        attack = [level.id for level in levels if level.funcao == ATTACK_FUNCTION]
        if len(attack) != 1:
            raise ValueError(_(
                "exactly one level must call for function '{function}' (Furioso); found "
                "{found}").format(function=ATTACK_FUNCTION, found=len(attack)))
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


def _get(obj: Any, name: str) -> Any:
    """A field of a model or of raw JSON data (None when missing)."""
    return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)


def _entries(obj: Any, name: str) -> List[Tuple[int, Any]]:
    """``(index, entry)`` of a list field, skipping entries that are not objects."""
    items = _get(obj, name)
    if not isinstance(items, list):
        return []
    # (hasattr, not isinstance(e, BaseModel): pydantic's metaclass makes that check slow)
    return [(i, e) for i, e in enumerate(items)
            if isinstance(e, dict) or hasattr(e, "model_fields_set")]


def _ident(obj: Any, name: str = "id") -> Optional[str]:
    value = _get(obj, name)
    return value if isinstance(value, str) else None


def _card_type(card: Any) -> Optional[CardType]:
    value = _get(card, "tipo")
    if value is None:
        return CardType.COMMON
    try:
        return CardType(value)
    except (ValueError, TypeError):
        return None  # a bad tipo is a schema error; its actor fields are not judged


def reference_issues(deck: Any) -> List[Issue]:
    """Cross-reference errors (ids, effects, actor functions) of a ``Deck`` or of raw deck data
    whose schema may be broken: what can be read is checked, so a deck's schema errors and its
    reference errors are reported together (issue 8)."""
    issues: List[Issue] = []
    for field in ("medidores", "niveis", "atores", "cartas", "modos"):
        seen = set()
        for i, entry in _entries(deck, field):
            ident = _ident(entry)
            if ident is None:
                continue
            if ident in seen:
                card = ident if field == "cartas" else None
                issues.append(Issue(card, f"{field}.{i}.id",
                                    _("duplicate id '{id}'").format(id=ident)))
            seen.add(ident)
    meters = {_ident(m) for _, m in _entries(deck, "medidores")}
    actors = {_ident(a) for _, a in _entries(deck, "atores")}
    functions = sorted({f for _, lv in _entries(deck, "niveis")
                        for f in [_ident(lv, "funcao")] if f is not None})
    declared = [d for _, md in _entries(deck, "modos") for d in [_ident(md)] if d is not None]
    known_modes = set(declared)  # a set: a deck may declare thousands of modes
    for i, card in _entries(deck, "cartas"):
        here = f"cartas.{i}"
        card_id = _ident(card) or f"#{i}"
        kind = _card_type(card)
        modo = _ident(card, "modo")
        if declared and modo is not None and modo not in known_modes:
            issues.append(Issue(card_id, f"{here}.modo",
                                _("unknown mode '{mode}' (modos declares: {declared})").format(
                                    mode=modo, declared=", ".join(declared))))
        for field in ("ator", "funcao"):
            given = _get(card, field) is not None
            if kind == CardType.ACTOR and not given:
                issues.append(Issue(card_id, f"{here}.{field}",
                                    _("an actor card (tipo 'ator') needs '{field}'").format(
                                        field=field)))
            elif kind not in (None, CardType.ACTOR) and given:
                issues.append(Issue(card_id, f"{here}.{field}",
                                    _("only actor cards (tipo 'ator') take '{field}'").format(
                                        field=field)))
        ator, funcao = _ident(card, "ator"), _ident(card, "funcao")
        if ator is not None and ator not in actors:
            issues.append(Issue(card_id, f"{here}.ator",
                                _("unknown actor '{actor}'").format(actor=ator)))
        if funcao is not None and functions and funcao not in functions:
            issues.append(
                Issue(
                    card_id,
                    f"{here}.funcao",
                    _("no level calls for function '{function}' (levels call for: "
                      "{functions})").format(function=funcao, functions=", ".join(functions)),
                )
            )
        for j, option in _entries(card, "opcoes"):
            for field, known, unknown in (("efeitos", meters, N_("unknown meter '{target}'")),
                                          ("efeitos_atores", actors,
                                           N_("unknown actor '{target}'"))):
                effects = _get(option, field)
                for target in effects if isinstance(effects, dict) else ():
                    if target not in known:
                        issues.append(Issue(card_id, f"{here}.opcoes.{j}.{field}",
                                            _(unknown).format(target=target)))
    return issues
