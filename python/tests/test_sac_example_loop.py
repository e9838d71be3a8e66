"""The example's training loop (python/examples/sac_reach.py main) stores
exactly the environment's transitions: every real step of every env once,
with the true final observation at the time limit, and no transition for a
NEXT_STEP autoreset step; it runs one update per stored step after the
warm-up. Checked against single-env rollouts of the same episode seeds and
actions (the env itself matches Go bit for bit: test_env.py). Needs torch."""

import sys
import unittest

import numpy as np

import helpers
import vlmrb

try:
    import torch  # noqa: F401
except ImportError:  # pragma: no cover
    torch = None

from test_sac_learner import load_example


class RecordingVec:
    """Wraps the example's vector env and records what each step returned."""

    def __init__(self, env):
        self.env, self.steps, self.reset_seed = env, [], None

    def __getattr__(self, k):
        return getattr(self.env, k)

    def reset(self, seed=None, options=None):
        self.reset_seed = seed
        return self.env.reset(seed=seed, options=options)

    def step(self, actions):
        out = self.env.step(actions)
        self.steps.append((np.array(actions, dtype=np.float64),) + tuple(np.array(x) for x in out[:4]))
        return out


class TestExampleLoopStorage(unittest.TestCase):
    @unittest.skipIf(torch is None, "torch is not installed")
    def test_stores_each_env_transition_once(self):
        ex = load_example()
        n, T, steps, starts = 2, 9, 80, 30
        made, bufs = [], []
        real_vec, real_rb = vlmrb.make_vec, vlmrb.ReplayBuffer

        def make_vec(*a, **k):
            made.append(RecordingVec(real_vec(*a, **k)))
            return made[-1]

        class RecordingRB(real_rb):
            def __init__(self, *a, **k):
                super().__init__(*a, **k)
                self.rows, self.samples = [], 0
                bufs.append(self)

            def add(self, obs, actions, rewards, next_obs, terminated, truncated, episodes, valid=None, **kw):
                for i in range(self.num_envs):
                    if valid is None or valid[i]:
                        self.rows.append((i, np.array(obs[i]), np.array(actions[i]), float(rewards[i]),
                                          np.array(next_obs[i]), bool(terminated[i]), bool(truncated[i])))
                return super().add(obs, actions, rewards, next_obs, terminated, truncated, episodes, valid=valid, **kw)

            def sample(self, batch_size, out=None):
                self.samples += 1
                return super().sample(batch_size, out)

        argv = sys.argv
        sys.argv = ["sac_reach.py", "--seed", "3", "--num-envs", str(n), "--episode-len", str(T), "--steps", str(steps),
                    "--learning-starts", str(starts), "--batch-size", "8", "--hidden", "8", "--eval-episodes", "1",
                    "--log-every", "100000"]
        vlmrb.make_vec, vlmrb.ReplayBuffer = make_vec, RecordingRB
        try:
            ex.main()
        finally:
            vlmrb.make_vec, vlmrb.ReplayBuffer, sys.argv = real_vec, real_rb, argv
        vec, rb = made[0], bufs[0]

        # the expected transitions: each env's episodes replayed in a single env
        want = []
        for i in range(n):
            k, auto = 0, False
            e = vlmrb.make("reach", max_episode_steps=T)
            o, _ = e.reset(seed=helpers.episode_seed(vec.reset_seed, i, 0))
            for t, (acts, obs, rew, term, trunc) in enumerate(vec.steps):
                if auto:  # the vector env's NEXT_STEP reset: no transition
                    k += 1
                    o, _ = e.reset(seed=helpers.episode_seed(vec.reset_seed, i, k))
                    self.assertTrue(np.array_equal(obs[i], o), "env %d step %d: the reset obs" % (i, t))
                    auto = False
                    continue
                o2, r, te, tr, _ = e.step(acts[i])
                want.append((t, i, o, acts[i], r, o2, te, tr))
                o, auto = o2, te or tr
            e.close()
        want.sort(key=lambda w: (w[0], w[1]))  # the loop adds env 0 then env 1 at each step
        self.assertEqual(len(rb.rows), len(want), "one stored row per real env step")
        self.assertEqual(len(want), steps, "the budget counts stored transitions")
        ends = 0
        for got, (t, i, o, a, r, o2, te, tr) in zip(rb.rows, want):
            self.assertEqual(got[0], i)
            self.assertTrue(np.array_equal(got[1], o), "obs at step %d env %d" % (t, i))
            self.assertTrue(np.array_equal(got[2], a), "action at step %d env %d" % (t, i))
            self.assertEqual(got[3], r)
            self.assertTrue(np.array_equal(got[4], o2), "next obs at step %d env %d (the final obs at the limit)" % (t, i))
            self.assertEqual((got[5], got[6]), (te, tr))
            ends += tr
        self.assertGreaterEqual(ends, 2 * n, "the run crossed several time limits")
        # one update (one sample) per stored step from the warm-up's end, as robot-train
        self.assertEqual(rb.samples, steps - starts + n)


if __name__ == "__main__":
    unittest.main()
