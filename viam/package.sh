#!/usr/bin/env bash
# Builds module.tar.gz, the archive Viam's registry takes (meta.json's
# "build"): meta.json, README.md and bin/vlmrb-viam, the entrypoint.
#
# The binary is built with CGO_ENABLED=0 -tags no_cgo: rdk's pure-Go
# build, vlmrb's soft renderer and gonum's pure-Go BLAS. It is static
# (ldd: "not a dynamic executable"), so the archive needs no first-run
# script and no system libraries; the cgo build (EGL renderer, OpenBLAS)
# needs libEGL, libGL, libX11, libopenblas, libgfortran and their
# dependencies at run time. Cross-build with GOARCH=arm64 ./package.sh.
#
# usage: ./package.sh [OUT]   (default module.tar.gz; written atomically)
set -euo pipefail
cd "$(dirname "$0")"
GO=${GO:-go}
out=${1:-module.tar.gz}
stage=$(mktemp -d)
tmp=""
trap 'rm -rf "$stage" ${tmp:+"$tmp"}' EXIT
mkdir -p "$stage/bin"
CGO_ENABLED=0 GOOS=linux GOARCH=${GOARCH:-$("$GO" env GOARCH)} \
  "$GO" build -tags no_cgo -trimpath -buildvcs=false -ldflags="-s -w" -o "$stage/bin/vlmrb-viam" ./cmd/vlmrb-viam
cp meta.json README.md "$stage/"
mkdir -p "$(dirname "$out")"
tmp=$(mktemp "$out.XXXXXX")
tar -C "$stage" --owner=0 --group=0 -czf "$tmp" meta.json README.md bin/vlmrb-viam
chmod 0644 "$tmp"
mv "$tmp" "$out"
tmp=""
echo "package: $out ($(stat -c %s "$out") bytes)"
