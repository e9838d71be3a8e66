"""Shared test helpers: the package is imported from the source tree."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

M64 = (1 << 64) - 1


def episode_seed(base, i, k):
    """control.EpisodeSeed as documented: a SplitMix64 finaliser of
    base ^ φ·(i+1) ^ c·(k+1) (written here from the formula, not the Go code)."""
    x = base ^ ((0x9E3779B97F4A7C15 * (i + 1)) & M64) ^ ((0xBF58476D1CE4E5B9 * (k + 1)) & M64)
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & M64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & M64
    x ^= x >> 31
    return x
