#!/usr/bin/env bash
# Newer Godot engines for the test suite, beside the system's Godot 3.2.3 (Debian 12's only one):
#   Godot 4.x from Debian sid (godot, godot-template-release, godot-template-debug)
#   Godot 3.6 from Debian trixie (godot3-server, godot3-runner)
#
#   scripts/engines.sh      install into build/engines/<line>/ when missing (cached: a second
#                           run does no download), then print the versions it has
#
# Why not apt-get install: these packages need a newer C library than bookworm's, so they must
# never enter the system. Each line gets a private apt configuration (its own sources, lists,
# cache and empty dpkg status) under build/engines/<line>/apt; the packages are only downloaded
# (signatures checked with the system's Debian keyring), unpacked with dpkg -x, and copies of the
# binaries are patched (patchelf) to use the unpacked loader and libraries, so they run directly
# (an exported game then finds its .pck; children such as python3 use the system's libraries).
# Sid moves: whatever 4.x it has today is what you get; nothing here names a point release.
# Entry points: build/engines/bin/godot4, godot3.6-server, godot3.6-runner.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
[ $# -eq 0 ] || { echo "usage: $0" >&2; exit 2; }

E="$ROOT/build/engines"
BIN="$E/bin"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

die() { echo "ERROR engines: $*" >&2; exit 1; }

# The Debian mirror the system's own apt sources name (never a hard-coded host).
mirror() {
  local m
  m="$(grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ \
       2>/dev/null | head -n1 | tr -d ' ' || true)"
  [ -n "$m" ] || die "no Debian mirror in /etc/apt/sources.list{,.d/}"
  echo "${m%/}"
}

command -v patchelf >/dev/null 2>&1 || {
  echo "engines: apt-get install patchelf"
  apt-get install -y -qq patchelf >/dev/null || die "apt-get install patchelf failed"
}

# install LINE PKG... : download and unpack the closure of PKG from Debian LINE into $E/LINE/root.
install_line() {
  local line=$1; shift
  local R="$E/$line"
  if [ -f "$R/.done" ]; then return 0; fi  # the cache: unpacked once, never downloaded again
  echo "engines: $line: downloading $*"
  rm -rf "$R"
  mkdir -p "$R/apt/lists/partial" "$R/apt/cache/archives/partial" "$R/root"
  : > "$R/apt/status"
  echo "deb [signed-by=$KEYRING] $(mirror) $line main" > "$R/apt/sources.list"
  local O=(-o "Dir::Etc::sourcelist=$R/apt/sources.list" -o Dir::Etc::sourceparts=/nonexistent
           -o "Dir::State::Lists=$R/apt/lists" -o "Dir::Cache=$R/apt/cache"
           -o "Dir::State::status=$R/apt/status" -o APT::Install-Recommends=false
           -o APT::Get::List-Cleanup=false)
  apt-get "${O[@]}" -qq update >"$R/apt.log" 2>&1 || die "$line: apt-get update failed (see $R/apt.log)"
  grep -qE '^(W|E): (Failed|Some index)' "$R/apt.log" && die "$line: apt-get update failed (see $R/apt.log)"
  apt-get "${O[@]}" -y -qq --download-only install "$@" >>"$R/apt.log" 2>&1 \
    || die "$line: downloading $* failed (see $R/apt.log)"
  local f
  for f in "$R"/apt/cache/archives/*.deb; do dpkg -x "$f" "$R/root" || die "$line: dpkg -x $f failed"; done
  rm -rf "$R/apt/cache/archives"  # 150 MB of .deb files: the unpacked tree is the cache
  touch "$R/.done"
}

# patch LINE SRC NAME : a copy of the unpacked SRC binary as $BIN/NAME that runs directly.
patch_bin() {
  local R="$E/$1" src=$2 name=$3
  local L="$R/root/usr/lib/x86_64-linux-gnu"
  [ -x "$R/root/usr/bin/$src" ] || die "$1: $src is not in the unpacked packages"
  mkdir -p "$BIN" "$R/patched"
  if [ ! -x "$R/patched/$src" ]; then
    cp "$R/root/usr/bin/$src" "$R/patched/$src.tmp"
    patchelf --set-interpreter "$L/ld-linux-x86-64.so.2" --force-rpath \
      --set-rpath "$L:$L/pulseaudio" "$R/patched/$src.tmp" || die "$1: patchelf $src failed"
    mv "$R/patched/$src.tmp" "$R/patched/$src"
  fi
  # Relative, so a build/engines shared between checkouts (a symlink to one folder) keeps links
  # that do not run through whichever checkout ran this script last.
  ln -sfn "../$1/patched/$src" "$BIN/$name"
}

# libpulse looks for its private libpulsecommon in pulseaudio/ beside it.
patch_pulse() {
  local L="$E/$1/root/usr/lib/x86_64-linux-gnu" f
  for f in "$L"/libpulse.so.0.* "$L"/libpulse-simple.so.0.*; do
    [ -f "$f" ] && patchelf --set-rpath '$ORIGIN/pulseaudio' "$f"
  done
  return 0
}

install_line sid godot godot-template-release godot-template-debug
patch_pulse sid
patch_bin sid godot godot4
patch_bin sid godot-template-release godot4-template-release
patch_bin sid godot-template-debug godot4-template-debug

install_line trixie godot3-server godot3-runner
patch_pulse trixie
patch_bin trixie godot3-server godot3.6-server
patch_bin trixie godot3-runner godot3.6-runner

v4="$("$BIN/godot4" --headless --version 2>/dev/null | tail -n1)" || die "sid: godot4 --headless --version failed"
v36="$("$BIN/godot3.6-server" --version 2>/dev/null | tail -n1)" || die "trixie: godot3.6-server --version failed"
echo "engines: godot4 $v4 (sid)"
echo "engines: godot3.6-server $v36 (trixie)"
