#!/usr/bin/env bash
# Runs viam-server (viam/.build/viam-server unless $VIAM_SERVER is set) with
# a local config in a loopback-only network namespace, for trying the
# vlmrb module offline:  sudo scripts/viam-sandbox.sh robot.json
# viam-server contacts public STUN/TURN hosts at startup; this script
# refuses to start it unless the namespace has only loopback.
set -euo pipefail
cfg=${1:?usage: viam-sandbox.sh CONFIG.json}
server=${VIAM_SERVER:-$(cd "$(dirname "$0")/.." && pwd)/viam/.build/viam-server}
exec unshare -n sh -c '
  ip link set lo up || exit 1
  if ip -o link | grep -qv " lo:"; then echo "viam-sandbox: a non-loopback interface exists; refusing" >&2; exit 1; fi
  if [ -n "$(ip route)" ] || ip -6 route | grep -qv " dev lo "; then echo "viam-sandbox: a route off loopback exists; refusing" >&2; exit 1; fi
  exec "$0" -config "$1" -disable-mdns -ftdc=false -webrtc=false -no-tls
' "$server" "$cfg"
