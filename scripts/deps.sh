#!/usr/bin/env bash
# Installs the system packages vlmrb needs, when they are missing.
# Idempotent and quiet when everything is present. On a system without
# apt-get it prints the packages to install and exits non-zero.
set -euo pipefail

# What each group is for:
#   build:  gcc libc6-dev pkg-config          cgo (EGL renderer, GLFW viewer, OpenBLAS backend)
#   egl:    libegl-dev libgl-dev libgl1-mesa-dri   headless OpenGL; Mesa llvmpipe on CPUs
#   glfw:   libx11-dev ... libxxf86vm-dev     GLFW's C sources compile against X11 headers
#   xvfb:   xvfb xauth                        viewer smoke test without a display
#   ffmpeg: ffmpeg                            camera streams in hw tests, MP4 output
#   blas:   libopenblas-dev                   the OpenBLAS backend of nn
PKGS=(
  gcc libc6-dev pkg-config
  libegl-dev libgl-dev libgl1-mesa-dri
  libx11-dev libxcursor-dev libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev
  xvfb xauth
  ffmpeg
  libopenblas-dev
)

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "deps: this system has no apt-get. Install the equivalents of these Debian packages with your" >&2
  echo "      package manager, then run make again:" >&2
  echo "      ${PKGS[*]}" >&2
  exit 1
fi

missing=()
for p in "${PKGS[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "deps: missing packages: ${missing[*]}" >&2
    echo "      run as root: apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
