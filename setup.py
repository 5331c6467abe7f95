"""Build step for the compiled simulation kernel (everything else is in pyproject.toml).

``sorteio.sim._ckernel`` is a plain C extension against CPython's C API: no build dependency
beyond a C compiler, so ``pip install`` works wherever Python does. It is ``optional``: without a
compiler (or when the build fails) the install still succeeds and ``sorteio simulate`` uses the
pure-Python kernel, with the same results (tests/test_kernel_differential.py runs both).
"""

import hashlib
import os
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "python/sorteio/sim/_ckernel.c"
# sim/ckernel.py refuses a build whose id is not its source's: no stale kernel in a checkout.
SOURCE_ID = int(hashlib.sha256(Path(SOURCE).read_bytes()).hexdigest()[:12], 16)

# SORTEIO_PURE=1 builds without it: the release zip's wheel (make dist) is one py3-none-any wheel
# for every platform and Python >= 3.8 (the pure-Python kernel: same numbers, slower).
PURE = os.environ.get("SORTEIO_PURE") == "1"

setup(
    ext_modules=[]
    if PURE
    else [
        Extension(
            "sorteio.sim._ckernel",
            sources=[SOURCE],
            define_macros=[("KERNEL_SOURCE_ID", str(SOURCE_ID))],
            optional=True,
        )
    ]
)
