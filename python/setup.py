"""Builds libvlmrb.so (the Go C ABI in python/capi) with the Go toolchain
before setuptools packages python/vlmrb. Needs `go` (1.26+) and gcc on PATH
and the repository around this directory (or VLMRB_SOURCE pointing at it)."""

import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = os.path.dirname(os.path.abspath(__file__))


def repo_root():
    root = os.environ.get("VLMRB_SOURCE") or os.path.dirname(HERE)
    if not os.path.exists(os.path.join(root, "go.mod")):
        raise SystemExit("vlmrb: cannot find the Go module (go.mod) at %s; install from a checkout of the "
                         "repository (pip install ./python) or set VLMRB_SOURCE to it" % root)
    return root


class BuildWithGo(build_py):
    def run(self):
        go = shutil.which("go")
        if go is None:
            raise SystemExit("vlmrb: building the library needs the Go toolchain (go) on PATH; see docs/python.md")
        out = os.path.join(HERE, "vlmrb", "libvlmrb.so")
        tmp = out + ".tmp"
        env = dict(os.environ, CGO_ENABLED="1")
        subprocess.check_call([go, "build", "-buildmode=c-shared", "-o", tmp, "./python/capi"], cwd=repo_root(), env=env)
        os.replace(tmp, out)  # atomically: a half-written library never loads
        for leftover in (tmp[:-3] + "h", os.path.splitext(tmp)[0] + ".h"):
            if os.path.exists(leftover):
                os.remove(leftover)
        super().run()


setup(cmdclass={"build_py": BuildWithGo})
