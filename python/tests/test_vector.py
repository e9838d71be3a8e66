"""The vector env: Gymnasium 1.x NEXT_STEP autoreset, seeds as Go's
control.EpisodeSeed, caller-owned buffers, errors."""

import unittest

import numpy as np

from helpers import episode_seed
import vlmrb
from vlmrb import VlmrbError

N, T = 3, 4  # envs, time limit


def single(seed, actions=()):
    """The single env's reset obs for seed and its obs after actions."""
    with vlmrb.make("reach") as e:
        o, _ = e.reset(seed=seed)
        out = [o]
        for a in actions:
            out.append(e.step(a)[0])
    return out


class TestAutoreset(unittest.TestCase):
    def test_next_step_autoreset(self):
        rng = np.random.default_rng(0)
        acts = rng.uniform(-1, 1, size=(2 * (T + 1), N, 4))
        with vlmrb.make_vec("reach", N, max_episode_steps=T) as v:
            obs, info = v.reset(seed=11)
            self.assertEqual(obs.shape, (N, 39))
            for i in range(N):
                self.assertTrue(np.array_equal(obs[i], single(episode_seed(11, i, 0))[0]))
            # episode 0: T steps, the last one truncated, obs = last obs
            for t in range(T):
                obs, rew, term, trunc, info = v.step(acts[t])
                self.assertFalse(term.any())
                self.assertEqual(trunc.tolist(), [t == T - 1] * N)
            for i in range(N):
                ref = single(episode_seed(11, i, 0), acts[:T, i])
                self.assertTrue(np.array_equal(obs[i], ref[T]), "final obs of the episode")
            # the next step ignores the actions (NaN here would otherwise
            # raise), resets and returns the reset obs, reward 0, no flags
            nan = np.full((N, 4), np.nan)
            obs, rew, term, trunc, info = v.step(nan)
            self.assertEqual(rew.tolist(), [0.0] * N)
            self.assertFalse(term.any() or trunc.any())
            for i in range(N):
                self.assertTrue(np.array_equal(obs[i], single(episode_seed(11, i, 1))[0]))
            self.assertIn("success", info)
            self.assertEqual(info["_success"].tolist(), [True] * N)
            # episode 1 then runs from that reset
            for t in range(T):
                obs, rew, term, trunc, info = v.step(acts[T + 1 + t])
                self.assertEqual(trunc.tolist(), [t == T - 1] * N)
            for i in range(N):
                ref = single(episode_seed(11, i, 1), acts[T + 1:2 * T + 1, i])
                self.assertTrue(np.array_equal(obs[i], ref[T]))

    def test_reset_restarts_sequence(self):
        with vlmrb.make_vec("reach", 2, max_episode_steps=2) as v:
            a, _ = v.reset(seed=4)
            for _ in range(3):
                v.step(np.zeros((2, 4)))
            b, _ = v.reset(seed=4)
            self.assertTrue(np.array_equal(a, b))


class TestVectorSignatures(unittest.TestCase):
    def test_spaces_metadata_spec(self):
        with vlmrb.make_vec("door-open", 3, max_episode_steps=9) as v:
            self.assertEqual(v.num_envs, 3)
            self.assertEqual(v.single_observation_space.shape, (39,))
            self.assertEqual(v.single_action_space.shape, (4,))
            self.assertEqual(v.observation_space.shape, (3, 39))
            self.assertEqual(v.action_space.shape, (3, 4))
            np.testing.assert_array_equal(v.action_space.high, np.ones((3, 4)))
            self.assertEqual(v.metadata["render_fps"], 80)
            self.assertIn(str(v.metadata["autoreset_mode"]), ("NextStep", "AutoresetMode.NEXT_STEP"))
            self.assertEqual(v.spec.max_episode_steps, 9)
            obs, info = v.reset(seed=0)
            out = v.step(v.action_space.sample())
            self.assertEqual(len(out), 5)
            self.assertEqual((out[1].dtype, out[2].dtype, out[3].dtype), (np.float64, np.bool_, np.bool_))
            self.assertEqual(info["success"].shape, (3,))


class TestBuffers(unittest.TestCase):
    def test_copy_false_reuses_buffers(self):
        with vlmrb.make_vec("reach", 2, copy=False) as v:
            o1, _ = v.reset(seed=0)
            o2, r2, *_ = v.step(np.zeros((2, 4)))
            o3, r3, *_ = v.step(np.zeros((2, 4)))
            self.assertIs(o2, o3)
            self.assertIs(r2, r3)
            self.assertIs(o1, o2)

    def test_copy_true_returns_fresh_arrays(self):
        with vlmrb.make_vec("reach", 2) as v:
            o1, _ = v.reset(seed=0)
            o2, *_ = v.step(np.ones((2, 4)))
            self.assertIsNot(o1, o2)
            self.assertFalse(np.array_equal(o1, o2))

    def test_step_into_caller_arrays(self):
        with vlmrb.make_vec("reach", 2) as v, vlmrb.make_vec("reach", 2) as w:
            v.reset(seed=8)
            w.reset(seed=8)
            obs, rew = np.zeros((2, 39)), np.zeros(2)
            term, trunc = np.zeros(2, bool), np.zeros(2, bool)
            infos = np.zeros((2, len(v.info_keys)))
            a = np.full((2, 4), 0.3)
            v.step_into(a, obs, rew, term, trunc, infos)
            ref = w.step(a)
            self.assertTrue(np.array_equal(obs, ref[0]))
            self.assertTrue(np.array_equal(rew, ref[1]))
            k = v.info_keys.index("success")
            self.assertTrue(np.array_equal(infos[:, k], ref[4]["success"]))
            with self.assertRaises(ValueError):
                v.step_into(a, np.zeros((2, 39), np.float32), rew, term, trunc, infos)
            with self.assertRaises(ValueError):
                v.step_into(a, obs[:, ::2], rew, term, trunc, infos)


class TestVectorBadInput(unittest.TestCase):
    def test_errors(self):
        for n in (0, -2, 1.5, True):
            with self.assertRaises((ValueError, TypeError)):
                vlmrb.make_vec("reach", n)
        v = vlmrb.make_vec("reach", 2)
        with self.assertRaisesRegex(VlmrbError, "reset"):
            v.step(np.zeros((2, 4)))
        v.reset(seed=1)
        for bad in (np.zeros((2, 3)), np.zeros((3, 4)), np.zeros(8)):
            with self.assertRaises(ValueError):
                v.step(bad)
        before = v.obs.copy()
        a = np.zeros((2, 4))
        a[1, 2] = np.nan
        with self.assertRaisesRegex(ValueError, "env 1"):
            v.step(a)
        self.assertTrue(np.array_equal(v.obs, before), "nothing stepped")
        for s in (-1, 2**64, "x"):
            with self.assertRaises((ValueError, TypeError)):
                v.reset(seed=s)
        v.close()
        v.close()
        with self.assertRaisesRegex(VlmrbError, "closed"):
            v.step(np.zeros((2, 4)))

    def test_render(self):
        with vlmrb.make_vec("reach", 2, render_mode="rgb_array", width=40, height=30) as v:
            v.reset(seed=0)
            self.assertEqual(v.render().shape, (30, 40, 3))
            self.assertEqual(v.render_env(1, 20, 10).shape, (10, 20, 3))
            with self.assertRaises(ValueError):
                v.render_env(2, 20, 10)


class TestRenderAll(unittest.TestCase):
    def test_matches_per_env_render(self):
        with vlmrb.make_vec("push", 3, render_mode="rgb_array", width=48, height=32, render_backend="soft") as v:
            v.reset(seed=2)
            out = np.zeros((3, 32, 48, 3), np.uint8)
            self.assertIs(v.render_all(out=out), out)
            for i in range(3):
                self.assertTrue(np.array_equal(out[i], v.render_env(i, 48, 32)))
            # different seeds place the puck differently: different pictures
            self.assertFalse(np.array_equal(out[0], out[1]))
            with self.assertRaises(ValueError):
                v.render_all(out=np.zeros((2, 32, 48, 3), np.uint8))


if __name__ == "__main__":
    unittest.main()
