"""Which simulation kernel plays the matches: the compiled one when it is built, else Python.

Both play exactly the oracle's matches (``tests/test_kernel_differential.py`` runs every
differential test on
each), so the choice changes the speed, never a figure. ``SORTEIO_KERNEL`` picks one by hand:

- unset or ``auto``: the compiled kernel (``ckernel``) when available, else ``kernel`` (Python);
- ``python``: always the pure-Python kernel (tests of the fallback, or to compare);
- ``c``: the compiled kernel, and an error when it is not built.
"""

import os
from typing import Iterable, Optional

from ..errors import SorteioError
from ..i18n import _
from . import ckernel, kernel
from .kernel import Tally
from .masks import FastDeck

KERNEL_ENV = "SORTEIO_KERNEL"
CHOICES = ("auto", "c", "python")


def kernel_name(choice: Optional[str] = None) -> str:
    """``"c"`` or ``"python"``: the kernel ``play_matches`` uses for ``choice`` (default: the
    ``SORTEIO_KERNEL`` environment variable). Raises ``SorteioError`` for a choice not in
    ``CHOICES`` or for ``c`` when the compiled kernel is not available."""
    if choice is None:
        choice = os.environ.get(KERNEL_ENV, "").strip().lower() or "auto"
    if choice not in CHOICES:
        raise SorteioError(_("{var}={choice!r}: expected one of {choices}").format(
            var=KERNEL_ENV, choice=choice, choices=", ".join(CHOICES)))
    if choice == "python":
        return "python"
    if ckernel.available():
        return "c"
    if choice == "c":
        # Asked for by SORTEIO_KERNEL=c, or by a sweep whose parent ran it (a worker elsewhere).
        raise SorteioError(_("the compiled kernel was asked for ({var}=c, or the sweep that "
                             "started this worker) but is not available here ({reason}); "
                             "reinstall sorteio with a C compiler (pip install -e .), or set "
                             "{var}=python").format(var=KERNEL_ENV,
                                                    reason=ckernel.unavailable_reason()))
    return "python"


def describe(name: str) -> str:
    """One line for the user: which kernel ran and, for Python, why not the compiled one."""
    if name == "c":
        return _("compiled kernel (C)")
    reason = _("forced by SORTEIO_KERNEL=python") if os.environ.get(KERNEL_ENV, "").strip(
    ).lower() == "python" else ckernel.unavailable_reason()
    return _("Python kernel ({reason})").format(reason=reason)


def play_matches(fd: FastDeck, seeds: Iterable[int], policy: str = "random",
                 tally: Optional[Tally] = None, trace: Optional[list] = None,
                 kernel_choice: Optional[str] = None, keep_meters: bool = False,
                 draw: str = "standard", keep_picked: bool = False) -> Tally:
    """``kernel.play_matches`` on the kernel ``kernel_name(kernel_choice)`` names (``draw``:
    ``standard`` or ``keyed``, see ``kernel.play_matches``)."""
    if kernel_name(kernel_choice) == "c":
        return ckernel.play_matches(fd, seeds, policy, tally, trace, keep_meters, draw,
                                    keep_picked)
    return kernel.play_matches(fd, seeds, policy, tally, trace, keep_meters, draw, keep_picked)
