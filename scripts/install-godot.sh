#!/usr/bin/env bash
# Install what the engine tests need from Debian's packages: godot3-server (headless Godot 3.2.3),
# and godot3-runner + xvfb for the demo screenshot. Idempotent; needs root (or sudo) and apt.
set -euo pipefail
need=()
command -v godot3-server >/dev/null 2>&1 || need+=(godot3-server)
command -v godot3-runner >/dev/null 2>&1 || need+=(godot3-runner)
command -v Xvfb >/dev/null 2>&1 || need+=(xvfb)
[ ${#need[@]} -eq 0 ] && exit 0
sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then sudo="sudo"; else
    echo "install-godot: need root to apt-get install ${need[*]}" >&2; exit 1
  fi
fi
echo "install-godot: apt-get install ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
