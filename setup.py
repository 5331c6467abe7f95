"""Build step for the compiled simulation kernel (everything else is in pyproject.toml).

``sorteio.sim._ckernel`` is a plain C extension against CPython's C API: no build dependency
beyond a C compiler, so ``pip install`` works wherever Python does. It is ``optional``: without a
compiler (or when the build fails) the install still succeeds and ``sorteio simulate`` uses the
pure-Python kernel, with the same results (tests/test_fast.py runs both).
"""

import hashlib
from pathlib import Path

from setuptools import Extension, setup

SOURCE = "python/sorteio/sim/_ckernel.c"
# sim/ckernel.py refuses a build whose id is not its source's: no stale kernel in a checkout.
SOURCE_ID = int(hashlib.sha256(Path(SOURCE).read_bytes()).hexdigest()[:12], 16)

setup(
    ext_modules=[
        Extension(
            "sorteio.sim._ckernel",
            sources=[SOURCE],
            define_macros=[("KERNEL_SOURCE_ID", str(SOURCE_ID))],
            optional=True,
        )
    ]
)
