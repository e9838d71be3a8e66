"""The replay buffer from Python: what comes out is what went in, and the
samplers draw with the probabilities and weights of their formulas
(replay's doc: PER P(i) ∝ (|δ|+ε)^α, w = (P_i/P_min)^−β; VLM-RB
q(i) = λ·p_i/Σp + (1−λ)/N with p = 1 above the threshold, the floor below
it and p̄ unscored), with scores from vlmprio's real scorers."""

import time
import unittest

import numpy as np

import helpers  # noqa: F401
import vlmrb
from vlmrb import VlmrbError

OD, AD = 5, 2


def fill(rb, n, progress=None, frames=None, episode_len=None, seed=0):
    """Adds n synthetic transitions (single env); returns their indices and obs."""
    rng = np.random.default_rng(seed)
    idx, obs = [], []
    ep = 0
    for t in range(n):
        o = rng.normal(size=OD)
        done = episode_len is not None and (t + 1) % episode_len == 0
        kw = {}
        if progress is not None:
            kw["progress"] = [progress[t]]
        if frames is not None:
            kw["frames"] = frames[t][None]
        i = rb.add(o[None], rng.uniform(-1, 1, size=(1, AD)), [float(t)], o[None] + 1, [False], [done], [ep], **kw)
        idx.append(int(i[0]))
        obs.append(o)
        if done:
            ep += 1
    return np.array(idx), np.array(obs)


def counts(rb, idx, draws, batch=500):
    pos = {int(v): k for k, v in enumerate(idx)}
    c = np.zeros(len(idx))
    for _ in range(draws // batch):
        b = rb.sample(batch)
        for v in b.indices:
            c[pos[int(v)]] += 1
    return c


def assert_frequencies(tc, c, q):
    """Each count within 5 standard deviations of its binomial expectation."""
    n = c.sum()
    e = n * q
    sd = np.sqrt(n * q * (1 - q))
    tc.assertTrue(np.all(np.abs(c - e) <= 5 * sd + 1), "counts %s, expected %s" % (c, e))


class TestStorage(unittest.TestCase):
    def test_sample_returns_what_was_added(self):
        with vlmrb.ReplayBuffer(100, OD, AD, sampler="uniform") as rb:
            idx, obs = fill(rb, 30)
            b = rb.sample(64)
            self.assertEqual(b.obs.dtype, np.float32)
            self.assertEqual(b.obs.shape, (64, OD))
            pos = {int(v): k for k, v in enumerate(idx)}
            for j in range(64):
                k = pos[int(b.indices[j])]
                np.testing.assert_array_equal(b.obs[j], obs[k].astype(np.float32))
                np.testing.assert_array_equal(b.next_obs[j], (obs[k] + 1).astype(np.float32))
                self.assertEqual(b.rewards[j], k)
            np.testing.assert_array_equal(b.weights, np.ones(64, np.float32))
            self.assertEqual(len(rb), 30)

    def test_ring_overwrites_and_stale_indices(self):
        with vlmrb.ReplayBuffer(10, OD, AD, sampler="per", beta_steps=0) as rb:
            old, _ = fill(rb, 10)
            new, _ = fill(rb, 10, seed=1)
            # same slots, next generation: the old indices no longer match
            np.testing.assert_array_equal(old & 0xFFFFFFFF, new & 0xFFFFFFFF)
            self.assertTrue(np.all(old != new))
            self.assertEqual(rb.update_priorities(old, np.ones(10)), 0)
            self.assertEqual(rb.update_priorities(new, np.ones(10)), 10)
            self.assertEqual(rb.metrics()["stale"], 10)

    def test_uniform_is_uniform(self):
        with vlmrb.ReplayBuffer(100, OD, AD, sampler="uniform") as rb:
            idx, _ = fill(rb, 20)
            assert_frequencies(self, counts(rb, idx, 20000), np.full(20, 1 / 20))


class TestPER(unittest.TestCase):
    def test_probabilities_and_weights(self):
        alpha, eps = 0.6, 1e-6
        with vlmrb.ReplayBuffer(100, OD, AD, sampler="per", per_alpha=alpha, beta_steps=0) as rb:
            idx, _ = fill(rb, 20)
            td = np.linspace(0.1, 3.0, 20)
            self.assertEqual(rb.update_priorities(idx, -td), 20)  # |δ|: the sign does not matter
            p = (td + eps) ** alpha
            assert_frequencies(self, counts(rb, idx, 30000), p / p.sum())
            # β = 1 throughout (beta_steps 0): w_j = (P_j/P_min)^−1 over the batch
            b = rb.sample(64)
            pos = {int(v): k for k, v in enumerate(idx)}
            pj = np.array([p[pos[int(v)]] for v in b.indices])
            np.testing.assert_allclose(b.weights, pj.min() / pj, rtol=1e-5)


class TestVLMRB(unittest.TestCase):
    def test_mixture_with_oracle_scores(self):
        lam = 0.5
        # progress rises over the first episode (high scores late), stays 0
        # in the second; the last transitions' clips are incomplete (unscored)
        prog = np.concatenate([np.linspace(0, 1, 12), np.zeros(12)])
        with vlmrb.ReplayBuffer(100, OD, AD, scorer="oracle", workers=0, clip_len=4, stride=2,
                                lambda_max=lam, warmup_steps=0) as rb:
            idx, _ = fill(rb, 24, progress=prog, episode_len=12)
            fill_more = rb.add(np.zeros((1, OD)), np.zeros((1, AD)), [0.0], np.zeros((1, OD)), [False], [False], [2],
                               progress=[0.0])
            idx = np.concatenate([idx, fill_more])
            s = rb.scores(idx)
            scored = ~np.isnan(s)
            self.assertTrue(scored[:24].all(), s)   # both finished episodes
            self.assertFalse(scored[24])            # its clip is still open
            self.assertTrue(np.any(s[scored] > 0.5) and np.any(s[scored] <= 0.5), s)
            p = np.where(~scored, 0.5, np.where(s > 0.5, 1.0, 1e-3))
            q = lam * p / p.sum() + (1 - lam) / len(p)
            assert_frequencies(self, counts(rb, idx, 40000), q)
            m = rb.metrics()
            self.assertEqual(m["lambda"], lam)
            self.assertEqual(m["scoring"]["scored"], m["clipper"]["Clips"])
            self.assertEqual(m["scored_slots"], 24)
            # the prioritized branch took about λ of the draws
            self.assertLess(abs(m["prioritized_draws"] / m["drawn"] - lam), 0.02)

    def test_async_workers_with_lag(self):
        lag = 3
        with vlmrb.ReplayBuffer(100, OD, AD, scorer="oracle", workers=2, lag=lag, clip_len=4, stride=2) as rb:
            idx, _ = fill(rb, 12, progress=np.linspace(0, 1, 12), episode_len=12)
            for _ in range(lag + 1):
                rb.tick()
            m = rb.metrics()["scoring"]
            self.assertEqual(m["submitted"], m["scored"])
            self.assertEqual(m["written"], 12)
            self.assertFalse(np.isnan(rb.scores(idx)).any())

    def test_masked_add_does_not_tick(self):
        # lag 2: a clip submitted in add k is written inside tick k+2; an
        # add whose rows are all masked (a NEXT_STEP autoreset step) is no
        # loop step, as in robot-train's loop
        with vlmrb.ReplayBuffer(100, OD, AD, scorer="oracle", workers=1, lag=2, clip_len=4, stride=2) as rb:
            fill(rb, 12, progress=np.linspace(0, 1, 12), episode_len=12)
            z = np.zeros((1, OD))
            for _ in range(3):
                rb.add(z, np.zeros((1, AD)), [0.0], z, [False], [False], [1], progress=[0.0], valid=[False])
            self.assertLess(rb.metrics()["scoring"]["written"], 12)
            rb.tick()
            rb.tick()
            self.assertEqual(rb.metrics()["scoring"]["written"], 12)

    def test_pixel_scorer_on_rendered_frames(self):
        env = vlmrb.make("reach", render_mode="rgb_array", width=64, height=64, max_episode_steps=16)
        frames, o = [], []
        env.reset(seed=0)
        rng = np.random.default_rng(0)
        with vlmrb.ReplayBuffer(100, 39, 4, scorer="pixel", task="reach", workers=0, clip_len=8, stride=4) as rb:
            obs, _ = env.reset(seed=0)
            idx = []
            for t in range(16):
                f = env.render()
                a = rng.uniform(-1, 1, 4)
                nobs, r, te, tr, _ = env.step(a)
                idx.append(rb.add(obs[None], a[None], [r], nobs[None], [te], [tr], [0], frames=f[None])[0])
                obs = nobs
            s = rb.scores(np.array(idx))
            self.assertFalse(np.isnan(s).any())
            self.assertTrue(np.all((s >= 0) & (s <= 1)))
            m = rb.metrics()
            self.assertEqual(m["scoring"]["failed"], 0)
            self.assertEqual(m["scoring"]["written"], 16)
        env.close()


class TestReplayBadInput(unittest.TestCase):
    def test_errors(self):
        for kw in ({"sampler": "fifo"}, {"scorer": "gpt"}, {"capacity": 0}, {"unknown": 1},
                   {"task": "no-task"}, {"lambda_max": 2.0}, {"workers": -1}):
            args = dict(capacity=10, obs_dim=OD, act_dim=AD)
            args.update(kw)
            with self.assertRaises(ValueError, msg=str(kw)):
                vlmrb.ReplayBuffer(**args)
        rb = vlmrb.ReplayBuffer(10, OD, AD, scorer="pixel")
        z = np.zeros((1, OD))
        with self.assertRaisesRegex(ValueError, "frames"):
            rb.add(z, np.zeros((1, AD)), [0], z, [False], [False], [0])
        with self.assertRaises(ValueError):
            rb.add(np.zeros((1, OD + 1)), np.zeros((1, AD)), [0], z, [False], [False], [0], frames=np.zeros((1, 8, 8, 3)))
        with self.assertRaisesRegex(ValueError, "finite"):
            rb.add(z + np.nan, np.zeros((1, AD)), [0], z, [False], [False], [0], frames=np.zeros((1, 8, 8, 3)))
        with self.assertRaises(ValueError):
            rb.add(z, np.zeros((1, AD)), [0], z, [False], [False], [0], frames=np.zeros((1, 8, 8)))
        with self.assertRaisesRegex(VlmrbError, "no sampleable"):
            rb.sample(4)
        with self.assertRaises(ValueError):
            rb.sample(0)
        with self.assertRaises(ValueError):
            rb.update_priorities([1, 2], [0.5])
        with self.assertRaises(ValueError):
            rb.update_priorities([1 << 40 | 999], [0.5])  # not an index sample() returned
        rb.close()
        rb.close()
        with self.assertRaisesRegex(VlmrbError, "closed"):
            rb.sample(4)


class TestValidMask(unittest.TestCase):
    def test_rows_not_valid_are_not_stored(self):
        with vlmrb.ReplayBuffer(10, OD, AD, num_envs=2, sampler="uniform") as rb:
            z = np.zeros((2, OD))
            idx = rb.add(z, np.zeros((2, AD)), [1, 2], z, [False, False], [False, False], [0, 0], valid=[True, False])
            self.assertEqual(idx[1], -1)
            self.assertGreaterEqual(idx[0], 0)
            self.assertEqual(len(rb), 1)
            self.assertTrue(np.all(rb.sample(8).rewards == 1))


if __name__ == "__main__":
    unittest.main()
