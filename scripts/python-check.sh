#!/usr/bin/env bash
# The Python package (python/vlmrb) against its C ABI: installs Debian's
# numpy and pytest when missing, builds libvlmrb.so (make python), runs
# python/tests with the system interpreter (/usr/bin/python3: a pyenv or
# venv python on PATH may lack Debian's packages), then checks that
# `pip install --no-build-isolation ./python` builds and installs a
# package that imports outside the source tree.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=/usr/bin/python3
need=()
"$PY" -c 'import numpy' 2>/dev/null || need+=(python3-numpy)
"$PY" -c 'import pytest' 2>/dev/null || need+=(python3-pytest)
# torch: the example SAC's tests (python/tests/test_sac_*.py: its learner
# against Go's, its loop's storage); ≈ 50 MB from Debian
"$PY" -c 'import torch' 2>/dev/null || need+=(python3-torch)
"$PY" -c 'import setuptools' 2>/dev/null || need+=(python3-setuptools)
"$PY" -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
"$PY" -m venv --help >/dev/null 2>&1 || need+=(python3-venv)
if ((${#need[@]})); then
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
fi
make python
PYTHONPATH=python "$PY" -m pytest -q -p no:cacheprovider python/tests

# pip route, into a throwaway venv that sees Debian's numpy
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PY" -m venv --system-site-packages "$tmp/venv"
"$tmp/venv/bin/pip" install -q --no-build-isolation --no-index ./python
(cd "$tmp" && "$tmp/venv/bin/python" -c 'import vlmrb, numpy as np
e = vlmrb.make("reach"); o, _ = e.reset(seed=0); e.step(np.zeros(4)); e.close()
print("pip-installed vlmrb from", vlmrb.__file__)')
rm -rf python/build python/vlmrb.egg-info
