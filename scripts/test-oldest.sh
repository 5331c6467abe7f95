#!/usr/bin/env bash
# Run the Python core's tests on the oldest runtime the product supports: godot-python embeds
# CPython 3.8, and pydantic 2.10 is the last pydantic line that runs there.
# Usage: scripts/test-oldest.sh VENV 'pydantic==2.10.*'
set -euo pipefail
venv=${1:-.venv-oldest}
pydantic=${2:-pydantic==2.10.*}
py=""
for candidate in python3.8 "$HOME/.pyenv/versions/3.8"*/bin/python3.8 /usr/bin/python3.8; do
  if command -v "$candidate" >/dev/null 2>&1 && "$candidate" -c 'import venv' 2>/dev/null; then
    py=$(command -v "$candidate"); break
  fi
done
if [ -z "$py" ]; then
  echo "test-oldest: no CPython 3.8 here; running with $(python3 --version) and $pydantic" >&2
  py=python3
fi
# The compiled kernel is built by the install: a changed C source or setup.py means a new build.
build=$(cat setup.py python/sorteio/sim/_ckernel.c | cksum)
spec="$py $pydantic $build cli,test"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.spec" 2>/dev/null)" != "$spec" ]; then
  rm -rf "$venv"
  "$py" -m venv "$venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check "$pydantic" -e '.[cli,test]'
  echo "$spec" > "$venv/.spec"
fi
"$venv/bin/python" -c 'import sys, pydantic; from sorteio.sim import kernels; print("test-oldest: Python", sys.version.split()[0], "pydantic", pydantic.VERSION, "kernel", kernels.kernel_name())'
# The engine-side suite; Godot and plotting tests ran in the main suite.
"$venv/bin/python" -m pytest -q -m "not godot and not plots" -p no:cacheprovider
