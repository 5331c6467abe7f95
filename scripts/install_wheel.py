"""Install sorteio from the release zip's wheels into the Python that runs this script.

    python3 addons/sorteio/wheel/install.py [--extras=cli,report] [pip options...]

The zip (``make dist``, scripts/dist.py, which ships this file as ``addons/sorteio/wheel/
install.py``) carries two wheels: one with the compiled simulation kernel for one CPython
version on Linux (a manylinux wheel: ~14x faster ``sorteio simulate`` and editor panel) and the
pure-Python one for every other platform and version (the same numbers, slower). This picks the
compiled wheel when this interpreter can load it (same CPython version, same machine, a glibc at
least as new as the wheel's manylinux tag) and the pure wheel otherwise, then runs
``python -m pip install`` on it (extra arguments go to pip). ``--extras=cli`` adds the package's
extras (``cli``: the ``sorteio`` command line; ``report``: plots): a game needs none of them.
Standard library only, Python >= 3.8.
"""

import os
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Tuple

HERE = Path(__file__).resolve().parent


def glibc() -> Optional[Tuple[int, int]]:
    """This system's glibc version, or None (musl, macOS, Windows)."""
    try:
        name, _, version = os.confstr("CS_GNU_LIBC_VERSION").partition(" ")
    except (AttributeError, ValueError, OSError):
        return None
    match = re.match(r"(\d+)\.(\d+)", version)
    return (int(match.group(1)), int(match.group(2))) if name == "glibc" and match else None


def fits(wheel: str, python: str, machine: str, libc: Optional[Tuple[int, int]]) -> bool:
    """Can an interpreter with tag ``python`` (``cp311``) on ``machine`` (``x86_64``) with glibc
    ``libc`` load ``wheel`` (a file name, PEP 427: name-version-python-abi-platform.whl)?"""
    python_tag, abi_tag, platforms = wheel[:-len(".whl")].split("-")[-3:]
    if platforms == "any":
        return python_tag.startswith("py3")
    if python_tag != python or abi_tag != python:
        return False
    for tag in platforms.split("."):
        match = re.fullmatch(r"manylinux_(\d+)_(\d+)_(\w+)", tag)
        if match and match.group(3) == machine and libc is not None and \
                (int(match.group(1)), int(match.group(2))) <= libc:
            return True
    return False


def choose(wheels: List[str], python: str, machine: str,
           libc: Optional[Tuple[int, int]]) -> str:
    """The compiled wheel that fits, else the pure one. Raises ``LookupError`` when none fits."""
    fitting = [w for w in sorted(wheels) if fits(w, python, machine, libc)]
    compiled = [w for w in fitting if not w.endswith("-any.whl")]
    if not (compiled or fitting):
        raise LookupError(f"no wheel here fits this Python ({python}, {machine}): {wheels}")
    return (compiled or fitting)[0]


def this_python() -> str:
    tag = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    return tag if sys.implementation.name == "cpython" else "py3"


def main() -> int:
    extras = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--extras=")]
    pip_args = [a for a in sys.argv[1:] if not a.startswith("--extras=")]
    wheels = [p.name for p in HERE.glob("sorteio-*.whl")]
    try:
        wheel = choose(wheels, this_python(), platform.machine(), glibc())
    except LookupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    kind = "pure Python" if wheel.endswith("-any.whl") else "compiled kernel"
    print(f"installing {wheel} ({kind}) into {sys.executable}")
    target = str(HERE / wheel) + (f"[{','.join(extras)}]" if extras else "")
    return subprocess.call([sys.executable, "-m", "pip", "install", target, *pip_args])


if __name__ == "__main__":
    sys.exit(main())
