"""The compiled kernel's Python side: a ``FastDeck`` as C tables, and ``play_matches`` on them.

``_ckernel`` (``_ckernel.c``, built at install when a C compiler is there) plays the same matches
as ``kernel.play_matches``, card for card: the same rules on the same bitsets, and CPython's
MT19937 and ``Rng.below`` reproduced bit for bit (tests/test_kernel_differential.py runs every
differential test against both). ``available()`` is False when the extension was not built;
``kernels`` then falls back to the pure-Python kernel.
"""

import hashlib
from pathlib import Path
from typing import Dict, Iterable, Optional

from .kernel import DRAWS, Tally
from .masks import FastDeck

try:
    from . import _ckernel  # type: ignore[attr-defined]
except ImportError as exc:  # no compiler at install time: the pure-Python kernel runs instead
    _ckernel = None
    _import_error = str(exc)

_POLICY_CODES = {"random": 0, "protect": 1, "lookahead": 2}  # _ckernel.c's POLICY_*
SOURCE = Path(__file__).with_name("_ckernel.c")


_source_ids: Dict[Path, int] = {}


def source_id(path: Optional[Path] = None) -> int:
    """The id setup.py compiles into the extension: 48 bits of the C source's SHA-256."""
    path = SOURCE if path is None else path
    if path not in _source_ids:
        _source_ids[path] = int(hashlib.sha256(path.read_bytes()).hexdigest()[:12], 16)
    return _source_ids[path]


def unavailable_reason() -> str:
    """Why ``available()`` is False (empty when it is True)."""
    if _ckernel is None:  # the import error is kept in _import_error for debugging
        return "não compilado nesta instalação (pip install sem compilador C)"
    if SOURCE.exists() and getattr(_ckernel, "SOURCE_ID", None) != source_id():
        # A source checkout whose _ckernel.c changed after the last build: never run stale code.
        return "compilado de outra versão de _ckernel.c: rode pip install -e . (make setup)"
    return ""


def available() -> bool:
    """True when the compiled kernel is importable and was built from this _ckernel.c (checked
    only where the source is present, i.e. a source checkout)."""
    return not unavailable_reason()


def _words(mask: int, n: int) -> bytes:
    return mask.to_bytes(8 * n, "little")


def _params(fd: FastDeck) -> tuple:
    ix = fd.index
    return (ix.n_slots, ix.cap, ix.meter_limit, ix.emergency_limit, ix.mode_limit)


def c_deck(fd: FastDeck) -> object:
    """The C tables of ``fd``'s card sets, built once and shared by its ``with_parameters``
    copies (the §7 parameters are passed at each call)."""
    cache = fd.__dict__.setdefault("_c_decks", {})  # percard.without_card gives a new one
    cdeck = cache.get("tables")
    if cdeck is None:
        cdeck = cache["tables"] = _build(fd, _params(fd))
    return cdeck


def _build(fd: FastDeck, params: tuple) -> object:
    ix = fd.index
    w, mw = fd.n_cards // 64 + 1, fd.n_meters // 64 + 1
    option_start, meff_start, aeff_start, meff, aeff = [0], [0], [0], [], []
    for c in range(fd.n_cards):
        for o in range(ix.n_options[c]):
            for m, d in ix.meter_effects[c][o]:
                meff += (m, d)
            for a, d in ix.actor_effects[c][o]:
                aeff += (a, d)
            meff_start.append(len(meff) // 2)
            aeff_start.append(len(aeff) // 2)
        option_start.append(len(meff_start) - 1)
    return _ckernel.compile_deck(
        (fd.n_cards, fd.n_meters, fd.n_actors, fd.n_modes, len(ix.level_ids), ix.furious),
        params,
        [_words(b, w) for b in fd.base + [0] * (5 - len(fd.base))],
        [_words(fd.non_actor, w)],
        # masks.FastDeck.actor_level: one table, group a * n_levels + level
        [_words(fd.actor_level[g], w) for g in range(fd.n_actors * len(ix.level_ids))],
        [_words(fd.linked[m], w) for m in range(fd.n_meters)],
        [_words(fd.attack[a], w) for a in range(fd.n_actors)],
        [_words(fd.mode_mask[md], w) for md in range(fd.n_modes)],
        [_words(mask, mw) for mask in fd.links],
        ix.mode, ix.actor, [int(a) for a in ix.is_attack],
        option_start, meff_start, meff, aeff_start, aeff,
        ix.level_of, fd.actor_rank, ix.initial_meters, ix.initial_satisfaction,
    )


def set_portable(portable: bool) -> bool:
    """Play with the portable select of the k-th set bit even where BMI2's pdep is fast (the
    tests run both; results are identical). Returns the previous setting; False and no effect
    when the kernel is not built."""
    return bool(_ckernel.set_portable(portable)) if _ckernel is not None else False


def play_matches(fd: FastDeck, seeds: Iterable[int], policy: str = "random",
                 tally: Optional[Tally] = None, trace: Optional[list] = None,
                 keep_meters: bool = False, draw: str = "standard",
                 keep_picked: bool = False) -> Tally:
    """``kernel.play_matches`` on the compiled kernel: same arguments, same ``Tally``, same
    ``trace``. Raises ValueError for an unknown policy or draw, RuntimeError when not
    ``available()``."""
    if policy not in _POLICY_CODES:
        raise ValueError(f"unknown policy '{policy}' (choose from: {', '.join(_POLICY_CODES)})")
    if draw not in DRAWS:
        raise ValueError(f"unknown draw '{draw}' (choose from: {', '.join(DRAWS)})")
    if not available():
        raise RuntimeError("the compiled kernel (sorteio.sim._ckernel) is not built")
    t = tally if tally is not None else Tally(fd.n_cards, fd.n_meters)
    (counts, card_draws, card_mandatory, end_sum, end_sq, zeroed, end_year, close_n, close_sum,
     close_sq, outcomes, meters, picked) = _ckernel.play(c_deck(fd), _params(fd), seeds,
                                                         _POLICY_CODES[policy], trace,
                                                         keep_meters, draw == "keyed",
                                                         keep_picked)
    for name, value in zip(("matches", "catastrophes", "cards_played", "turns", "turns_closed",
                            "short_turns", "mandatory"), counts):
        setattr(t, name, getattr(t, name) + value)
    t.catastrophe += outcomes
    t.end_meters += meters
    t.picked += picked
    for mine, theirs in ((t.card_draws, card_draws), (t.card_mandatory, card_mandatory),
                         (t.end_sum, end_sum), (t.end_sq, end_sq), (t.zeroed, zeroed),
                         (t.end_year, end_year), (t.close_n, close_n)):
        for i, v in enumerate(theirs):
            mine[i] += v
    nm = fd.n_meters
    for year in range(len(t.close_sum)):
        row_sum, row_sq = t.close_sum[year], t.close_sq[year]
        for m in range(nm):
            row_sum[m] += close_sum[year * nm + m]
            row_sq[m] += close_sq[year * nm + m]
    return t
