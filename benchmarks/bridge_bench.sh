#!/usr/bin/env bash
# Bridge benchmark (not a test): a draw over the socket bridge from GDScript, and the same draw
# in-process from Python. Prints BENCH lines (microseconds; per_second = 1e6 / mean).
#   benchmarks/bridge_bench.sh [DRAWS]        (PYTHON defaults to .venv/bin/python)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DRAWS="${1:-2000}"
if [ -z "${PYTHON:-}" ]; then
  if [ -x "$ROOT/.venv/bin/python" ]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
PYTHON="$(command -v "$PYTHON")"
echo "# $(godot3-server --version 2>/dev/null | tail -1), $("$PYTHON" --version), $(nproc) cores"
"$PYTHON" "$ROOT/benchmarks/bridge_inprocess.py" --draws "$DRAWS"
LANG=en_US.UTF-8 SORTEIO_PYTHON="$PYTHON" timeout 300 godot3-server --path "$ROOT/godot3/demo_project" \
  -s "$ROOT/benchmarks/bridge_socket.gd" -- --draws="$DRAWS" 2>&1 | grep '^BENCH'
