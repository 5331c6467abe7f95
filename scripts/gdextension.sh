#!/usr/bin/env bash
# The Python GDExtension for Godot 4 (godot-python-extension, embedded CPython 3.12) with sorteio
# installed in its own site-packages: the runtime of the Godot 4 addon's in-process bridge.
# The Godot 4 counterpart of scripts/pythonscript.sh.
#
#   scripts/gdextension.sh runtime          print the folder holding the installed runtime's
#                                           addons/godot-python-extension/ (cached)
#   scripts/gdextension.sh install PROJECT  copy it into the Godot 4 project folder PROJECT (a
#                                           scratch copy, never a shared one) with the
#                                           sorteio.pyextension the extension reads at the root
#   scripts/gdextension.sh where            print the extension archive that would be used
#
# Where the extension comes from is one setting, GDEXTENSION_DIST: the vendored archive
# (python-gdextension-*-linux-x86_64.tar.gz, default: the one in ../shared/vendor/python-gdextension/
# beside the repository, checked against the SHA256SUMS beside it). Which CPython 3.12 runs pip
# (its wheels must be cp312, like the embedded interpreter) is GDEXTENSION_PYTHON, else
# python3.12 on PATH, else pyenv's newest 3.12.
#
# What goes in: pydantic (cp312 wheels) and sorteio from this checkout with its `sheets` extra
# (openpyxl and et_xmlfile, pure Python: the editor panel's .xlsx export/import runs on this
# Python) and WITHOUT its CLI dependencies (click, rich): the bridge imports neither. A game
# ships this folder, so it holds nothing else (no pip, no setuptools, no __pycache__); the
# addon's export plugin leaves openpyxl and et_xmlfile out of an exported game, which never
# imports them (addons/sorteio/editor/export_plugin.gd, LEFT_OUT_EDITOR_ONLY).
# The result is cached in build/gdextension/<key>/, keyed by the archive's checksum, the pydantic
# spec and the sorteio sources; nothing is ever written beside the archive (../shared is
# read-only). At run time no system Python is used: the extension embeds its own libpython.
#
# Exit codes: 0 ok; 3 no extension archive or no CPython 3.12 (one line on stderr says what is
# missing and how to get it); 1 any other failed step (one line names it).
set -euo pipefail
shopt -s inherit_errexit
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENDOR="$ROOT/../shared/vendor/python-gdextension"
if [ ! -d "$VENDOR" ]; then
  # A git worktree elsewhere: ../shared beside the main checkout.
  common="$(git -C "$ROOT" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)"
  if [ -n "$common" ] && [ -d "$(dirname "$common")/../shared/vendor/python-gdextension" ]; then
    VENDOR="$(cd "$(dirname "$common")/../shared/vendor/python-gdextension" && pwd)"
  fi
fi
CACHE="$ROOT/build/gdextension"
PYDANTIC_SPEC="pydantic>=2.10,<3"
EXT=addons/godot-python-extension
SITE="$EXT/bin/linux-x86_64/python3.12/site-packages"
export PIP_ROOT_USER_ACTION=ignore PIP_DISABLE_PIP_VERSION_CHECK=1

die() { echo "gdextension: $*" >&2; exit 1; }
missing() { echo "gdextension: $*" >&2; exit 3; }

dist_path() {
  local dist="${GDEXTENSION_DIST:-}"
  if [ -z "$dist" ]; then
    dist="$(ls "$VENDOR"/python-gdextension-*-linux-x86_64.tar.gz 2>/dev/null | head -n 1 || true)"
    [ -n "$dist" ] || missing "no extension archive (no GDEXTENSION_DIST, nothing in $VENDOR): \
build one with ../shared/vendor/python-gdextension/build.sh OUTDIR and set GDEXTENSION_DIST"
  fi
  [ -f "$dist" ] || missing "GDEXTENSION_DIST=$dist does not exist"
  echo "$(cd "$(dirname "$dist")" && pwd)/$(basename "$dist")"
}

dist_checksum() {
  local dist="$1" sum sums expected
  sum="$(sha256sum "$dist" | cut -d' ' -f1)"
  sums="$(dirname "$dist")/SHA256SUMS"
  if [ -f "$sums" ]; then
    expected="$(awk -v f="$(basename "$dist")" '$2 == f || $2 == "*" f {print $1}' "$sums")"
    [ -n "$expected" ] || die "checksum step: $(basename "$dist") is not listed in $sums"
    [ "$expected" = "$sum" ] || die "checksum step: $dist is $sum, $sums says $expected"
  elif [ -z "${GDEXTENSION_DIST:-}" ]; then
    die "checksum step: no SHA256SUMS beside the vendored $dist"
  fi
  echo "$sum"
}

find_python312() {
  # A CPython 3.12 with pip: its wheels (pydantic-core) must match the embedded cp312.
  local cand root
  local -a cands=()
  [ -n "${GDEXTENSION_PYTHON:-}" ] && cands+=("$GDEXTENSION_PYTHON")
  command -v python3.12 >/dev/null 2>&1 && cands+=("$(command -v python3.12)")
  root="$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"
  for cand in $(ls -d "$root"/versions/3.12*/bin/python3.12 2>/dev/null | sort -rV); do
    cands+=("$cand")
  done
  for cand in "${cands[@]}"; do
    if "$cand" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null \
       && "$cand" -m pip --version >/dev/null 2>&1; then
      echo "$cand"; return 0
    fi
  done
  missing "no CPython 3.12 with pip (tried GDEXTENSION_PYTHON, python3.12 on PATH, \
$root/versions/3.12*): install one (pyenv install 3.12, or apt/python.org) or set GDEXTENSION_PYTHON"
}

sources_checksum() {
  # Every file the runtime is built from: the kernel's C source and setup.py, the catalogs too.
  (cd "$ROOT" && { echo "$PYDANTIC_SPEC"; find pyproject.toml setup.py scripts/gdextension.sh python/sorteio -type f \
    \( -name '*.py' -o -name '*.sh' -o -name '*.json' -o -name '*.toml' -o -name '*.typed' \
       -o -name '*.c' -o -name '*.mo' \) -print0 \
    | sort -z | xargs -0 sha256sum; } | sha256sum | cut -d' ' -f1)
}

runtime() {
  local dist dist_sum src_sum key out py
  dist="$(dist_path)"
  dist_sum="$(dist_checksum "$dist")"
  src_sum="$(sources_checksum)"
  key="${dist_sum:0:16}-${src_sum:0:16}"
  out="$CACHE/$key"
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9  # two test runs of one checkout install once
  if [ ! -f "$out/.installed" ]; then
    py="$(find_python312)"
    echo "gdextension: unpacking $(basename "$dist") into $out" >&2
    local work="$CACHE/.work-$$"
    rm -rf "$CACHE"/.work-*  # left by an interrupted install (we hold the lock)
    mkdir -p "$work"
    tar -xzf "$dist" -C "$work" || die "unpack step: tar -xzf $dist failed"
    [ -f "$work/$EXT/python.gdextension" ] || die "unpack step: $dist has no $EXT/python.gdextension"
    mkdir -p "$work/$SITE"
    # A copy of the sources: pip builds in the source tree, and the checkout stays untouched.
    local src="$work/.src"
    mkdir -p "$src"
    # setup.py too: it builds the compiled simulation kernel for this cp312 (the editor panel's
    # simulations and per-card study run on this Python; without it they fell to the pure-Python
    # kernel, ~60x slower than the CLI). It is optional, as in `make setup`: no compiler, no
    # kernel, same numbers. LDSHARED/CFLAGS keep this machine's paths out of the .so (no
    # pyenv rpath, no debug info naming the build folder): the runtime goes into zips and games.
    cp -a "$ROOT/pyproject.toml" "$ROOT/README.md" "$ROOT/setup.py" "$ROOT/python" "$src/"
    rm -rf "$src/python/sorteio/sim/_ckernel"*.so
    # One resolution: sorteio's own dependencies (pydantic) and its `sheets` extra (openpyxl,
    # whose spec lives in pyproject.toml), pydantic held to $PYDANTIC_SPEC.
    echo "gdextension: pip ($py) installing $PYDANTIC_SPEC + sorteio[sheets] (no CLI extras) into $SITE" >&2
    LDSHARED="${CC:-gcc} -shared" CFLAGS="-g0" \
      "$py" -m pip install -q --no-compile --no-warn-script-location --target "$work/$SITE" \
      "$PYDANTIC_SPEC" "$src[sheets]" >"$work/.pip.log" 2>&1 \
      || die "pip step: installing $PYDANTIC_SPEC and sorteio[sheets] failed (see $work/.pip.log)"
    rm -rf "$src" "$work/$SITE/bin"
    find "$work/$EXT" -name __pycache__ -type d -prune -exec rm -rf {} +
    # The editor must not scan the runtime: it would take every .py of site-packages for a
    # Python script resource and import it through res:// (errors by the dozen, minutes).
    touch "$work/$EXT/bin/linux-x86_64/python3.12/.gdignore"
    # The import check runs the build Python isolated, on the runtime's site-packages only; it
    # writes no bytecode into the runtime.
    "$py" -I -B -c 'import sys; sys.path.insert(0, sys.argv[1])
import sorteio.bridge.inprocess, pydantic, openpyxl
from sorteio.sim import ckernel
print("pydantic", pydantic.VERSION, "openpyxl", openpyxl.__version__,
      "kernel", "compiled" if ckernel.available() else "pure: " + ckernel.unavailable_reason())' "$work/$SITE" >"$work/.installed" \
      || die "import step: sorteio.bridge.inprocess or openpyxl does not import from $SITE"
    echo "$dist" >>"$work/.installed"
    rm -f "$work/.pip.log"
    mv "$work" "$out"
    # Runtimes of older sources or archives: one cached runtime is enough.
    find "$CACHE" -mindepth 1 -maxdepth 1 -type d ! -name "$key" ! -name '.*' -exec rm -rf {} +
    echo "gdextension: installed ($(head -n1 "$out/.installed"), $(du -sh "$out/$EXT" | cut -f1))" >&2
  fi
  exec 9>&-
  echo "$out"
}

install_into() {
  local project="$1" rt
  [ -f "$project/project.godot" ] || die "install step: $project has no project.godot"
  rt="$(runtime)"
  rm -rf "${project:?}/$EXT"
  mkdir -p "$project/addons"
  cp -a "$rt/$EXT" "$project/addons/"
  # The extension imports the packages named by *.pyextension files in the working folder (the
  # project root in the editor); the addon's copy is the source of truth.
  if [ -f "$project/addons/sorteio/python/sorteio.pyextension" ]; then
    cp "$project/addons/sorteio/python/sorteio.pyextension" "$project/sorteio.pyextension"
  fi
  # What the editor writes the first time it opens the project.
  mkdir -p "$project/.godot"
  grep -qs "res://$EXT/python.gdextension" "$project/.godot/extension_list.cfg" \
    || echo "res://$EXT/python.gdextension" >>"$project/.godot/extension_list.cfg"
  echo "$project"
}

case "${1:-}" in
  runtime) runtime ;;
  install) [ $# -eq 2 ] || die "usage: $0 install PROJECT_DIR"; install_into "$2" ;;
  where) dist_path ;;
  *) echo "usage: $0 runtime | install PROJECT_DIR | where" >&2; exit 2 ;;
esac
