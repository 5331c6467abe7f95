#!/usr/bin/env bash
# The real godot-python addon (pythonscript 0.50.x, embedded CPython 3.8) with sorteio installed
# in it, as addons/sorteio/README.md tells a user to do, for tests and exports.
#
#   scripts/pythonscript.sh runtime         print the folder of the installed runtime (cached)
#   scripts/pythonscript.sh install PROJECT copy that runtime into the Godot project folder
#                                           PROJECT (a scratch copy: never a shared one) and
#                                           enable it in PROJECT/project.godot
#   scripts/pythonscript.sh where           print where pythonscript would come from, or why not
#
# Where pythonscript comes from is one setting, PYTHONSCRIPT_DIST: an archive (.tar.bz2, .tar.gz,
# .zip: the official release or the vendored build) or a folder holding pythonscript.gdnlib and
# addons/pythonscript/. Default: the vendored archive in ../shared/vendor/pythonscript/ beside the
# repository, when it is there. An archive with a SHA256SUMS beside it must match it.
#
# The runtime (unpacked addon + ensurepip + pip install "pydantic>=2.10,<2.11" + sorteio's base
# install, then pip and setuptools removed: a game ships only what it imports) is
# cached in build/pythonscript/<key>/, keyed by the dist's checksum and the sorteio sources, so
# only the first run of a checkout pays the ~1 min install. Nothing is ever written beside the
# dist (../shared is read-only).
#
# Exit codes: 0 ok; 3 no pythonscript found (one line on stderr says how to get it); 1 anything
# else (bad checksum, failed install).
set -euo pipefail
shopt -s inherit_errexit  # a failure inside $(...) stops the script too
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VENDOR="$ROOT/../shared/vendor/pythonscript"
if [ ! -d "$VENDOR" ]; then
  # A git worktree elsewhere: ../shared beside the main checkout.
  common="$(git -C "$ROOT" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || true)"
  if [ -n "$common" ] && [ -d "$(dirname "$common")/../shared/vendor/pythonscript" ]; then
    VENDOR="$(cd "$(dirname "$common")/../shared/vendor/pythonscript" && pwd)"
  fi
fi
CACHE="$ROOT/build/pythonscript"
export PIP_ROOT_USER_ACTION=ignore
PYDANTIC_SPEC="pydantic>=2.10,<2.11"
# Linux x86-64 is the only platform the tests and the vendored build cover.
PLATFORM="x11-64"
HOW_TO_GET="get pythonscript 0.50.x (the godot-python release for Godot 3.2, x11-64) or build it \
with ../shared/vendor/pythonscript/build.sh OUTDIR, then set PYTHONSCRIPT_DIST=archive-or-folder"

die() { echo "pythonscript: $*" >&2; exit 1; }

dist_path() {
  # The dist to use, or exit 3 with how to get one.
  local dist="${PYTHONSCRIPT_DIST:-}"
  if [ -z "$dist" ]; then
    dist="$(ls "$VENDOR"/pythonscript-0.50.*-"$PLATFORM"-*.tar.bz2 2>/dev/null | head -n 1 || true)"
    if [ -z "$dist" ]; then
      echo "pythonscript: not found (no PYTHONSCRIPT_DIST, nothing in $VENDOR): $HOW_TO_GET" >&2
      exit 3
    fi
  fi
  [ -e "$dist" ] || { echo "pythonscript: PYTHONSCRIPT_DIST=$dist does not exist: $HOW_TO_GET" >&2; exit 3; }
  (cd "$(dirname "$dist")" && echo "$(pwd)/$(basename "$dist")")
}

dist_checksum() {
  # sha256 of an archive (checked against SHA256SUMS beside it when there is one), or of a
  # folder's file list and contents.
  local dist="$1" sum
  if [ -d "$dist" ]; then
    [ -f "$dist/pythonscript.gdnlib" ] && [ -d "$dist/addons/pythonscript" ] \
      || die "$dist is not a pythonscript folder (no pythonscript.gdnlib + addons/pythonscript/)"
    (cd "$dist" && find pythonscript.gdnlib addons/pythonscript -type f -print0 | sort -z \
      | xargs -0 sha256sum | sha256sum | cut -d' ' -f1)
    return
  fi
  sum="$(sha256sum "$dist" | cut -d' ' -f1)"
  local sums
  sums="$(dirname "$dist")/SHA256SUMS"
  if [ -f "$sums" ]; then
    local expected
    expected="$(awk -v f="$(basename "$dist")" '$2 == f || $2 == "*" f {print $1}' "$sums")"
    [ -n "$expected" ] || die "$(basename "$dist") is not listed in $sums"
    [ "$expected" = "$sum" ] || die "checksum mismatch for $dist: $sum, $sums says $expected"
  elif [ -z "${PYTHONSCRIPT_DIST:-}" ]; then
    die "no SHA256SUMS beside the vendored $dist"
  fi
  echo "$sum"
}

sources_checksum() {
  # What the installed sorteio is made of: a change to any of it makes a new runtime.
  (cd "$ROOT" && { echo "$PYDANTIC_SPEC"; find pyproject.toml python/sorteio -type f \
    \( -name '*.py' -o -name '*.json' -o -name '*.toml' -o -name '*.typed' \) -print0 \
    | sort -z | xargs -0 sha256sum; } | sha256sum | cut -d' ' -f1)
}

unpack() {
  local dist="$1" dest="$2"
  mkdir -p "$dest"
  case "$dist" in
    *.zip) (cd "$dest" && python3 -m zipfile -e "$dist" .) ;;
    *.tar.*|*.tgz|*.tar) tar -xf "$dist" -C "$dest" ;;
    *) [ -d "$dist" ] || die "$dist: not a folder, .zip or .tar.* archive"
       cp -a "$dist/pythonscript.gdnlib" "$dist/addons" "$dest/" ;;
  esac
  # A release zip may hold the project files one folder down.
  if [ ! -f "$dest/pythonscript.gdnlib" ]; then
    local inner
    inner="$(find "$dest" -maxdepth 3 -name pythonscript.gdnlib -print -quit)"
    [ -n "$inner" ] || die "$dist holds no pythonscript.gdnlib"
    mv "$(dirname "$inner")"/* "$dest/"
  fi
  [ -x "$dest/addons/pythonscript/$PLATFORM/bin/python3" ] \
    || die "$dist has no addons/pythonscript/$PLATFORM/bin/python3 (a build for another platform?)"
}

runtime() {
  local dist dist_sum src_sum key out
  dist="$(dist_path)"
  dist_sum="$(dist_checksum "$dist")"  # one substitution per line: each failure stops us
  src_sum="$(sources_checksum)"
  key="${dist_sum:0:16}-${src_sum:0:16}"
  out="$CACHE/$key"
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9  # two test runs of one checkout install once
  if [ ! -f "$out/.installed" ]; then
    echo "pythonscript: installing $dist with sorteio into $out" >&2
    local work="$CACHE/.work-$$"
    rm -rf "$CACHE"/.work-*  # left by an interrupted install (we hold the lock)
    unpack "$dist" "$work"
    local py="$work/addons/pythonscript/$PLATFORM/bin/python3"
    "$py" -m ensurepip >/dev/null || die "ensurepip failed in $py"
    # A copy of the sources: pip builds in the source tree, and the checkout stays untouched.
    local src="$work/.src"
    mkdir -p "$src"
    cp -a "$ROOT/pyproject.toml" "$ROOT/README.md" "$ROOT/python" "$src/"
    "$py" -m pip install -q --disable-pip-version-check --no-warn-script-location \
      "$PYDANTIC_SPEC" "$src" || die "pip install into $py failed"
    rm -rf "$src"
    # A game imports only the base install (pydantic: the rules and the bridges, issue 14); the
    # installers themselves travel no further: pip and setuptools go once sorteio is in.
    "$py" -m pip uninstall -q -y --disable-pip-version-check setuptools pip \
      || die "pip uninstall in $py failed"
    "$py" -c 'import sorteio.bridge.inprocess, pydantic; print("pydantic", pydantic.VERSION)' \
      >"$work/.installed" || die "sorteio does not import in $py"
    echo "$dist" >>"$work/.installed"
    mv "$work" "$out"
    # Runtimes of older sources or dists: one cached runtime is enough.
    find "$CACHE" -mindepth 1 -maxdepth 1 -type d ! -name "$key" ! -name '.*' -exec rm -rf {} +
  fi
  exec 9>&-
  echo "$out"
}

install_into() {
  local project="$1" rt
  [ -f "$project/project.godot" ] || die "$project has no project.godot"
  rt="$(runtime)"
  rm -rf "$project/addons/pythonscript" "$project/pythonscript.gdnlib"
  mkdir -p "$project/addons"
  cp -a "$rt/addons/pythonscript" "$project/addons/"
  cp -a "$rt/pythonscript.gdnlib" "$project/"
  # [gdnative] singletons=["res://pythonscript.gdnlib"], kept once if already there.
  "$rt/addons/pythonscript/$PLATFORM/bin/python3" - "$project/project.godot" <<'EOF'
import re, sys
path = sys.argv[1]
text = open(path, encoding="utf-8").read()
line = 'singletons=[ "res://pythonscript.gdnlib" ]'
if "res://pythonscript.gdnlib" not in text:
    if re.search(r"^\[gdnative\]\s*$", text, re.M):
        text = re.sub(r"^\[gdnative\]\s*$", "[gdnative]\n\n" + line, text, count=1, flags=re.M)
    else:
        text = text.rstrip("\n") + "\n\n[gdnative]\n\n" + line + "\n"
    open(path, "w", encoding="utf-8").write(text)
EOF
  echo "$project"
}

case "${1:-}" in
  runtime) runtime ;;
  install) [ $# -eq 2 ] || die "usage: $0 install PROJECT_DIR"; install_into "$2" ;;
  where) d="$(dist_path)"; echo "$d" ;;
  *) echo "usage: $0 runtime | install PROJECT_DIR | where" >&2; exit 2 ;;
esac
