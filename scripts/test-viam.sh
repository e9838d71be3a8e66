#!/usr/bin/env bash
# make test-viam: builds viam-server (from rdk's source, with cgo: Viam's
# fake UR5e plans its motions with nlopt) and
# the vlmrb-viam module, then runs the viam/ tests inside a loopback-only
# network namespace. viam-server contacts public STUN/TURN hosts at
# startup, so it is never started outside one: this script refuses to run
# the end-to-end tests when `unshare -n` is unavailable, and the tests
# themselves check the namespace before they exec viam-server.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
start=$(date +%s)

./scripts/deps.sh
missing=()
command -v unshare >/dev/null 2>&1 || missing+=(util-linux)
command -v ip >/dev/null 2>&1 || missing+=(iproute2)
# rdk's cgo build: nlopt (motion planning of the fake UR5e), x264 (video)
for p in libnlopt-dev libx264-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  # as scripts/deps.sh: sudo when not root, wait for another apt to finish
  # (lock timeout), and refresh the package lists when an install fails
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
      echo "test-viam: missing packages: ${missing[*]}; run as root: apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  fi
  echo "test-viam: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  APT=($SUDO apt-get -o DPkg::Lock::Timeout=300 -y -qq)
  if ! "${APT[@]}" install --no-install-recommends "${missing[@]}" >/dev/null; then
    "${APT[@]}" update
    "${APT[@]}" install --no-install-recommends "${missing[@]}" >/dev/null
  fi
fi

out=viam/.build
mkdir -p "$out"
(
  cd viam
  # Build caches (GOCACHE, GOMODCACHE) make the second run fast; the first
  # downloads rdk v0.132.0's module graph through the Go proxy.
  "$GO" build -o .build/viam-server ./cmd/viam-server
  # the module and the tests are built as the archive ships the module:
  # pure Go (CGO_ENABLED=0 -tags no_cgo), so one build of rdk serves all three
  export CGO_ENABLED=0
  "$GO" build -tags no_cgo -o .build/vlmrb-viam ./cmd/vlmrb-viam
  "$GO" vet -tags no_cgo ./...
  "$GO" test -c -tags no_cgo -o .build/vlmviam.test ./vlmviam
  # the registry archive (static binary + meta.json), run by TestE2EPackagedModule
  GO="$GO" ./package.sh .build/module.tar.gz
  tar -tzvf .build/module.tar.gz
)
built=$(date +%s)

root=$PWD
if ! unshare -n true 2>/dev/null; then
  echo "test-viam: 'unshare -n' failed (needs root or CAP_SYS_ADMIN); refusing to start viam-server with network access" >&2
  exit 1
fi
cd viam/vlmviam
unshare -n env \
  VLMRB_VIAM_SERVER="$root/$out/viam-server" \
  VLMRB_VIAM_MODULE="$root/$out/vlmrb-viam" \
  VLMRB_VIAM_PACKAGE="$root/$out/module.tar.gz" \
  VLMRB_VIAM_REQUIRE=1 \
  VLMRB_VIAM_METRICS="${VLMRB_VIAM_METRICS:-}" \
  sh -c 'ip link set lo up && exec "$0" -test.count=1 -test.timeout=20m ${VLMRB_VIAM_TESTFLAGS:-}' "$root/$out/vlmviam.test"
end=$(date +%s)
echo "test-viam: build $((built - start)) s, tests $((end - built)) s, total $((end - start)) s"
