#!/usr/bin/env bash
# Godot engine tests: installs Godot 3.2.3 (Debian's godot3-server; godot3-runner + xvfb for the
# screenshot; godot3, the windowed editor, for the editor panel's screenshot) when missing, then
# runs the engine and bridge tests through pytest.
#
#   scripts/godot_tests.sh                  install if needed, run the tests
#   scripts/godot_tests.sh --install-only   only install; prints a SKIP line and exits 0 when
#                                           apt is impossible (no apt-get, not root, no sudo)
#   scripts/godot_tests.sh --update-screenshot
#                                           also copy the test run's pictures to godot3/demo_project/docs/
#                                           (screenshot.png, start/mid/low/end.png: the READMEs')
#
# PYTHON (default: .venv/bin/python, else python3) must have sorteio installed (pip install -e .).
# The python-bridge runs use the real pythonscript from PYTHONSCRIPT_DIST (scripts/pythonscript.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"

install_only=0
update_screenshot=0
for arg in "$@"; do
  case "$arg" in
    --install-only) install_only=1 ;;
    --update-screenshot) update_screenshot=1 ;;
    *) echo "usage: $0 [--install-only] [--update-screenshot]" >&2; exit 2 ;;
  esac
done

missing=()
command -v godot3-server >/dev/null 2>&1 || missing+=(godot3-server)
command -v godot3-runner >/dev/null 2>&1 || missing+=(godot3-runner)
command -v godot3 >/dev/null 2>&1 || missing+=(godot3)  # the windowed editor: panel screenshot
command -v Xvfb >/dev/null 2>&1 || missing+=(xvfb)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "SKIP godot: apt-get not found, cannot install ${missing[*]}"
  elif [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; then
    echo "SKIP godot: not root and no password-less sudo, cannot install ${missing[*]}"
  else
    echo "godot_tests: apt-get install ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq || echo "godot_tests: apt-get update failed"
    if ! $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; then
      echo "ERROR godot: apt-get install ${missing[*]} failed" >&2
      exit 1  # apt is there: a failed install is a failure, not a reason to skip
    fi
  fi
fi
[ "$install_only" -eq 1 ] && exit 0

if [ -z "${PYTHON:-}" ]; then
  if [ -x "$ROOT/.venv/bin/python" ]; then PYTHON="$ROOT/.venv/bin/python"; else PYTHON=python3; fi
fi
"$PYTHON" -m pytest -q tests/test_godot_engine.py tests/test_editor.py tests/test_dist.py \
  tests/test_bridge_server.py tests/test_bridge_handler.py tests/test_bridge_designer.py \
  tests/test_bridge_inprocess.py tests/test_pythonscript_install.py tests/test_godot_layout.py
if [ "$update_screenshot" -eq 1 ]; then
  cp build/godot/demo_midmatch.png godot3/demo_project/docs/screenshot.png
  cp build/godot/shots/start.png build/godot/shots/mid.png build/godot/shots/low.png \
    build/godot/shots/end.png godot3/demo_project/docs/
  cp build/godot/editor_panel.png docs/editor_panel.png
  echo "godot_tests: updated godot3/demo_project/docs/screenshot.png, start/mid/low/end.png, docs/editor_panel.png"
fi
