"""The single env: Gymnasium signatures, agreement with the Go env bit for
bit, and errors (not crashes) on bad input."""

import unittest

import numpy as np

import helpers  # noqa: F401  (puts the package on sys.path)
import vlmrb
from vlmrb import VlmrbError


def random_actions(n, seed, scale=1.5):
    # |a| up to 1.5: the Go env clips to [-1, 1], so clipping is exercised too
    return np.random.default_rng(seed).uniform(-scale, scale, size=(n, 4))


class TestSignatures(unittest.TestCase):
    def setUp(self):
        self.env = vlmrb.make("reach")

    def tearDown(self):
        self.env.close()

    def test_spaces_metadata_spec(self):
        e = self.env
        self.assertEqual(e.observation_space.shape, (39,))
        self.assertEqual(e.observation_space.dtype, np.float64)
        self.assertEqual(e.action_space.shape, (4,))
        np.testing.assert_array_equal(e.action_space.low, -np.ones(4))
        np.testing.assert_array_equal(e.action_space.high, np.ones(4))
        # 5 sim steps of 2.5 ms per control step: 80 Hz (MetaWorld)
        self.assertEqual(e.metadata["render_fps"], 80)
        self.assertEqual(e.spec.max_episode_steps, 500)
        self.assertEqual(e.spec.id, "vlmrb/Reach-v0")

    def test_reset_step_types(self):
        obs, info = self.env.reset(seed=1)
        self.assertIsInstance(obs, np.ndarray)
        self.assertEqual((obs.shape, obs.dtype), ((39,), np.float64))
        self.assertIsInstance(info, dict)
        self.assertIn("success", info)
        out = self.env.step(self.env.action_space.sample())
        self.assertEqual(len(out), 5)
        obs, r, te, tr, info = out
        self.assertEqual(obs.shape, (39,))
        self.assertIsInstance(r, float)
        self.assertIsInstance(te, bool)
        self.assertIsInstance(tr, bool)
        self.assertIsInstance(info, dict)
        # reach's dense reward is in [0, 10]
        self.assertTrue(0 <= r <= 10)

    def test_every_task_makes_and_steps(self):
        for t in vlmrb.tasks():
            with vlmrb.make(t) as e:
                obs, _ = e.reset(seed=0)
                self.assertTrue(np.all(np.isfinite(obs)), t)
                e.step(np.zeros(4))

    def test_time_limit_truncates(self):
        with vlmrb.make("reach", max_episode_steps=7) as e:
            self.assertEqual(e.spec.max_episode_steps, 7)
            e.reset(seed=2)
            for t in range(7):
                _, _, te, tr, _ = e.step(np.zeros(4))
                self.assertFalse(te)
                self.assertEqual(tr, t == 6)
            with self.assertRaises(VlmrbError):  # Gymnasium: reset after the end
                e.step(np.zeros(4))

    def test_sparse_reward_is_success(self):
        with vlmrb.make("reach", reward="sparse") as e:
            e.reset(seed=0)
            _, r, _, _, info = e.step(np.zeros(4))
            self.assertEqual(r, info["success"])


class TestAgreesWithGo(unittest.TestCase):
    def test_reset_same_seed_same_obs_as_go(self):
        for seed in (0, 1, 12345, 2**64 - 1):
            go_obs, _ = vlmrb.go_rollout("push", seed, np.zeros((0, 4)))
            with vlmrb.make("push") as e:
                obs, _ = e.reset(seed=seed)
                obs2, _ = e.reset(seed=seed)
            self.assertTrue(np.array_equal(obs, go_obs[0]), seed)
            self.assertTrue(np.array_equal(obs, obs2))
        with vlmrb.make("push") as e:
            a, _ = e.reset(seed=0)
            b, _ = e.reset(seed=1)
        self.assertFalse(np.array_equal(a, b))  # the seed moves the puck and goal

    def test_rollout_bit_identical(self):
        for task in ("reach", "reach-center", "pick-place"):
            acts = random_actions(120, 7)
            go_obs, go_rew = vlmrb.go_rollout(task, 99, acts)
            with vlmrb.make(task) as e:
                obs, _ = e.reset(seed=99)
                py_obs, py_rew = [obs], []
                for a in acts:
                    o, r, _, _, _ = e.step(a)
                    py_obs.append(o)
                    py_rew.append(r)
            # bit for bit: array_equal, not allclose
            self.assertTrue(np.array_equal(np.array(py_obs), go_obs), task)
            self.assertTrue(np.array_equal(np.array(py_rew), go_rew), task)

    def test_default_task_reach_center(self):
        # robot-train's default task (rundir.DefaultConfig) is reachable by name and id
        self.assertIn("reach-center", vlmrb.tasks())
        with vlmrb.make("reach-center", max_episode_steps=200) as e:
            self.assertEqual(e.spec.id, "vlmrb/ReachCenter-v0")
            self.assertEqual(e.spec.max_episode_steps, 200)
            obs, _ = e.reset(seed=4)
            go_obs, _ = vlmrb.go_rollout("reach-center", 4, np.zeros((0, 4)))
            self.assertTrue(np.array_equal(obs, go_obs[0]))
        with vlmrb.make_vec("reach-center", 2) as v:
            self.assertEqual(v.spec.id, "vlmrb/ReachCenter-v0")

    def test_reset_without_seed_continues_deterministically(self):
        def seq():
            with vlmrb.make("reach") as e:
                e.reset(seed=5)
                return [e.reset()[0] for _ in range(3)]
        a, b = seq(), seq()
        for x, y in zip(a, b):
            self.assertTrue(np.array_equal(x, y))
        self.assertFalse(np.array_equal(a[0], a[1]))


class TestEngine(unittest.TestCase):
    """The tabletop's one engine, sim/articulated (MuJoCo's equations on the
    task's MJCF scene): engine="articulated" and the default are the same;
    engine="sim", the removed old engine, and unknown engines are refused in
    the words of train's engine key and the CLI's --engine."""

    def test_rollout_bit_identical(self):
        for task in ("push", "pick-place"):
            acts = random_actions(120, 11)
            go_obs, go_rew = vlmrb.go_rollout(task, 99, acts, engine="articulated")
            with vlmrb.make(task, engine="articulated") as e:
                obs, _ = e.reset(seed=99)
                py_obs, py_rew = [obs], []
                for a in acts:
                    o, r, _, _, _ = e.step(a)
                    py_obs.append(o)
                    py_rew.append(r)
            # bit for bit: array_equal, not allclose
            self.assertTrue(np.array_equal(np.array(py_obs), go_obs), task)
            self.assertTrue(np.array_equal(np.array(py_rew), go_rew), task)
            default_obs, _ = vlmrb.go_rollout(task, 99, acts)
            self.assertTrue(np.array_equal(default_obs, go_obs), task)  # the default is articulated

    def test_vector_env_takes_engine(self):
        acts = random_actions(30, 3)
        last = {}
        for engine in ("", "articulated"):
            with vlmrb.make_vec("push", 2, engine=engine) as v:
                v.reset(seed=4)
                for a in acts:
                    o, *_ = v.step(np.stack([a, a]))
                last[engine] = o.copy()
        self.assertTrue(np.array_equal(last[""], last["articulated"]))

    def test_refusals_are_trains(self):
        with self.assertRaisesRegex(ValueError, 'engine "sim" .* was removed; the tabletop runs on the articulated engine'):
            vlmrb.make("push", engine="sim")
        with self.assertRaisesRegex(ValueError, 'engine "mujoco" is not one of articulated'):
            vlmrb.make("push", engine="mujoco")
        with self.assertRaisesRegex(ValueError, "engine articulated applies to the tabletop tasks .*; "
                                    "task doorkey-5x5 has its own engine, leave engine unset"):
            vlmrb.make("doorkey-5x5", engine="articulated")


class TestBadInput(unittest.TestCase):
    def test_bad_actions_raise_and_do_not_move(self):
        acts = random_actions(3, 1)
        go_obs, _ = vlmrb.go_rollout("reach", 3, acts)
        with vlmrb.make("reach") as e:
            e.reset(seed=3)
            for bad in (np.zeros(3), np.zeros(5), np.zeros((2, 2)), [np.nan, 0, 0, 0],
                        [0, np.inf, 0, 0], [0, 0, -np.inf, 0], "abcd"):
                with self.assertRaises((ValueError, TypeError)):
                    e.step(bad)
            # the env did not move: the valid rollout still matches Go
            for t, a in enumerate(acts):
                o, *_ = e.step(a)
                self.assertTrue(np.array_equal(o, go_obs[t + 1]))

    def test_bad_seeds(self):
        with vlmrb.make("reach") as e:
            for s in (-1, 2**64, 1.5, "3", True, None.__class__):
                with self.assertRaises((ValueError, TypeError)):
                    e.reset(seed=s)
            e.reset(seed=np.uint64(2**64 - 1))  # numpy ints are fine

    def test_step_before_reset(self):
        with vlmrb.make("reach") as e:
            with self.assertRaisesRegex(VlmrbError, "call reset"):
                e.step(np.zeros(4))

    def test_use_after_close_and_double_close(self):
        e = vlmrb.make("reach", render_mode="rgb_array")
        e.reset(seed=0)
        e.close()
        e.close()
        for f in (lambda: e.step(np.zeros(4)), lambda: e.reset(seed=0), e.render):
            with self.assertRaisesRegex(VlmrbError, "closed"):
                f()

    def test_bad_make_options(self):
        for kw in ({"task": "no-such-task"}, {"task": "reach", "reward": "shaped"},
                   {"task": "reach", "max_episode_steps": -1}, {"task": "reach", "unknown_option": 1},
                   {"task": "reach", "width": 0}, {"task": "reach", "render_mode": "human"}):
            with self.assertRaises(ValueError, msg=str(kw)):
                vlmrb.make(**kw)

    def test_message_is_gos(self):
        with self.assertRaisesRegex(ValueError, "choose one of: .*reach"):
            vlmrb.make("reech")


class TestRender(unittest.TestCase):
    def test_any_size_and_deterministic(self):
        with vlmrb.make("reach", render_mode="rgb_array", width=96, height=64, render_backend="soft") as e:
            e.reset(seed=0)
            f = e.render()
            self.assertEqual((f.shape, f.dtype), ((64, 96, 3), np.uint8))
            self.assertGreater(f.std(), 5)  # a scene, not a blank frame
            self.assertTrue(np.array_equal(f, e.render()))
            for w, h in ((33, 17), (200, 150)):
                self.assertEqual(e.render_frame(w, h).shape, (h, w, 3))
            # the hand moves 1 cm per unit action and step: 20 steps down
            # move it 20 cm, which must change the picture
            for _ in range(20):
                e.step(np.array([0, 0, -1, 0]))
            self.assertFalse(np.array_equal(f, e.render()))
            with self.assertRaises(ValueError):
                e.render_frame(0, 10)

    def test_no_render_mode_returns_none(self):
        with vlmrb.make("reach") as e:
            e.reset(seed=0)
            self.assertIsNone(e.render())


@unittest.skipUnless(vlmrb.HAVE_GYMNASIUM, "gymnasium is not installed")
class TestGymnasium(unittest.TestCase):  # pragma: no cover - needs gymnasium
    def test_real_classes_and_registry(self):
        import gymnasium
        e = gymnasium.make("vlmrb/Reach-v0")
        self.assertIsInstance(e.unwrapped, gymnasium.Env)
        self.assertIsInstance(e.observation_space, gymnasium.spaces.Box)
        e.close()


if __name__ == "__main__":
    unittest.main()
