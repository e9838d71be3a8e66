#!/usr/bin/env bash
# Checks vlmrb's exported ONNX policies (a SAC actor and a DoorKey DQN
# Q-network, 1,000 random observations each) in two other runtimes:
#   1. gonnx v1.1.0 (pure Go), the separate module onnx/gonnxcheck;
#   2. ONNX Runtime through onnxruntime-node 1.30.0 from npm, installed
#      once into a cache outside the repository with --ignore-scripts (its
#      postinstall would download; the CPU library ships in the package).
# Fails when either differs from vlmrb's forward pass by more than 1e-5.
# ONNX_CHECK_CACHE overrides the cache folder.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
ORT_VERSION=1.30.0
cache=${ONNX_CHECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vlmrb/onnxruntime-node-$ORT_VERSION}

echo "== gonnx (onnx/gonnxcheck)"
# -mod=mod: the module follows the core go.mod through its replace, so it
# may need checksums that the core gained after its go.sum was written
(cd onnx/gonnxcheck && GOFLAGS="${GOFLAGS:-} -mod=mod" $GO test -count=1 -v .) | grep -E 'max \||^(---|ok|FAIL|PASS)'

echo "== onnxruntime-node $ORT_VERSION"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	if command -v apt-get >/dev/null && [ "$(id -u)" -eq 0 ]; then
		echo "onnx-check: installing nodejs and npm" >&2
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
	else
		echo "onnx-check: node and npm are needed: install nodejs and npm (Debian: apt-get install nodejs npm)" >&2
		exit 1
	fi
fi
if [ ! -f "$cache/node_modules/onnxruntime-node/package.json" ]; then
	mkdir -p "$cache"
	ONNXRUNTIME_NODE_INSTALL=skip npm install --prefix "$cache" --ignore-scripts --no-audit --no-fund --loglevel=error \
		"onnxruntime-node@$ORT_VERSION" >&2
fi
fixtures=$(mktemp -d)
trap 'rm -rf "$fixtures"' EXIT
$GO run ./onnx/onnxfixture/write "$fixtures"
ORT_NODE_DIR="$cache" node scripts/onnx-check.mjs "$fixtures"
