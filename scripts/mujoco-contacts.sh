#!/usr/bin/env bash
# Regenerates sim/convex/testdata/mujoco/*.json (and four scenes of
# sim/mjcf/testdata/contacts): MuJoCo 3.3.8's contacts and
# mesh inertia for the scenes beside them (scripts/mujoco-contacts.mjs),
# with npm mujoco-js 0.0.7 installed once into a cache outside the repository
# (MUJOCO_JS_CACHE overrides it). Needs node and npm.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
MJ_VERSION=0.0.7
cache=${MUJOCO_JS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vlmrb/mujoco-js-$MJ_VERSION}
if [ ! -f "$cache/node_modules/mujoco-js/dist/mujoco_wasm.js" ]; then
	mkdir -p "$cache"
	npm install --prefix "$cache" --ignore-scripts --no-audit --no-fund --loglevel=error "mujoco-js@$MJ_VERSION" >&2
fi
# sim/convex's scenes, and sim/mjcf's collision-detection scenes for the
# articulated engine (the other XMLs there are trajectory scenes)
for xml in "$here"/../sim/convex/testdata/mujoco/*.xml "$here"/../sim/mjcf/testdata/contacts/{filters,filterparent,gripper_static,pairs}.xml; do
	out="${xml%.xml}.json"
	MUJOCO_JS_DIR="$cache" node "$here/mujoco-contacts.mjs" "$xml" >"$out.tmp"
	mv "$out.tmp" "$out"
	echo "wrote $out" >&2
done
