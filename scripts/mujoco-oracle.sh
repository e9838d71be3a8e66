#!/usr/bin/env bash
# Runs MuJoCo 3.3.8 (npm mujoco-js 0.0.7, WebAssembly) on an MJCF file:
# scripts/mujoco-oracle.mjs, with mujoco-js installed once into a cache
# outside the repository (npm install --ignore-scripts; the package has no
# dependencies). Arguments go to the .mjs (see there). With --install-only
# it installs and prints the cache folder. MUJOCO_JS_CACHE overrides the
# cache folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
MJ_VERSION=0.0.7
cache=${MUJOCO_JS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vlmrb/mujoco-js-$MJ_VERSION}
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	# as scripts/deps.sh: apt-get, through sudo when not root
	sudo=""
	if [ "$(id -u)" -ne 0 ] && command -v sudo >/dev/null; then sudo="sudo"; fi
	if command -v apt-get >/dev/null && { [ "$(id -u)" -eq 0 ] || [ -n "$sudo" ]; }; then
		echo "mujoco-oracle: installing nodejs and npm" >&2
		export DEBIAN_FRONTEND=noninteractive
		$sudo apt-get -o DPkg::Lock::Timeout=300 update -qq
		$sudo apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends nodejs npm >/dev/null
	else
		echo "mujoco-oracle: node and npm are needed: install nodejs and npm (Debian: apt-get install nodejs npm)" >&2
		exit 1
	fi
fi
if [ ! -f "$cache/node_modules/mujoco-js/dist/mujoco_wasm.js" ]; then
	mkdir -p "$cache"
	npm install --prefix "$cache" --ignore-scripts --no-audit --no-fund --loglevel=error "mujoco-js@$MJ_VERSION" >&2
fi
if [ "${1:-}" = "--install-only" ]; then
	echo "$cache"
	exit 0
fi
MUJOCO_JS_DIR="$cache" exec node "$here/mujoco-oracle.mjs" "$@"
