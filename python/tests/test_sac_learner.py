"""The example's PyTorch SAC (python/examples/sac_reach.py) against vlmrb's
Go SAC (package sac): the same initial weights, batches and noise must give
the same weights, α and losses after 1, 2, 10 and 40 updates, to float32
round-off. Go writes the fixture (sac.TestWriteLearnerFixture), so the
check follows the Go learner as it changes. Needs torch and the Go
toolchain; skipped without either."""

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import helpers  # noqa: F401  (puts the package on sys.path)

try:
    import torch
except ImportError:  # pragma: no cover
    torch = None

ROOT = os.path.dirname(os.path.dirname(helpers.HERE))


def load_example():
    spec = importlib.util.spec_from_file_location("sac_reach", os.path.join(ROOT, "python", "examples", "sac_reach.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write_fixture(out, sizes=None):
    """Runs the Go fixture writer into out; sizes "obs,act,hidden,batch,updates,pool"."""
    env = dict(os.environ, VLMRB_SAC_FIXTURE=out)
    if sizes:
        env["VLMRB_SAC_FIXTURE_SIZES"] = sizes
    subprocess.run(["go", "test", "-count=1", "-run", "^TestWriteLearnerFixture$", "./sac"], cwd=ROOT, env=env,
                   check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


class Fixture:
    def __init__(self, d):
        self.dir = d
        with open(os.path.join(d, "meta.json")) as f:
            self.meta = json.load(f)
        m = self.meta
        O, A, P = m["obs_dim"], m["act_dim"], m["pool"]
        pool = np.fromfile(os.path.join(d, "pool.f32"), "<f4")
        cuts = np.cumsum([P * O, P * A, P, P * O])
        self.obs, self.act, self.rew, self.next_obs, self.term = np.split(pool, cuts)
        self.obs, self.next_obs = self.obs.reshape(P, O), self.next_obs.reshape(P, O)
        self.act = self.act.reshape(P, A)
        self.indices = np.fromfile(os.path.join(d, "indices.i32"), "<i4").reshape(-1, m["batch"])
        self.noise = np.fromfile(os.path.join(d, "noise.f32"), "<f4")

    def params(self, k):
        return np.fromfile(os.path.join(self.dir, "params_%d.f32" % k), "<f4")


def mlp_layers(flat, sizes, off):
    """Go's nn.MLP.Params (per layer W in×out row-major, then B) as torch
    (weight out×in, bias) pairs."""
    out = []
    for i, o in zip(sizes[:-1], sizes[1:]):
        w = flat[off:off + i * o].reshape(i, o).T.copy()
        off += i * o
        b = flat[off:off + o].copy()
        off += o
        out.append((w, b))
    return out, off


def go_nets(flat, O, A, H):
    """Splits Go's agent parameters into actor, qf1, qf2, qf1_t, qf2_t layer
    lists and log α."""
    nets, off = [], 0
    for sizes in ([O, H, H, 2 * A],) + ([O + A, H, H, 1],) * 4:
        layers, off = mlp_layers(flat, sizes, off)
        nets.append(layers)
    assert off == flat.size - 1, (off, flat.size)
    return nets, float(flat[-1])


def torch_nets(agent):
    """The example agent's parameters in go_nets' layout."""
    a = agent.actor
    last_w = torch.cat([a.fc_mean.weight, a.fc_logstd.weight], 0)
    last_b = torch.cat([a.fc_mean.bias, a.fc_logstd.bias], 0)
    nets = [[(a.fc1.weight, a.fc1.bias), (a.fc2.weight, a.fc2.bias), (last_w, last_b)]]
    for q in (agent.qf1, agent.qf2, agent.qf1_t, agent.qf2_t):
        nets.append([(q.fc1.weight, q.fc1.bias), (q.fc2.weight, q.fc2.bias), (q.fc3.weight, q.fc3.bias)])
    return [[(w.detach().numpy(), b.detach().numpy()) for w, b in n] for n in nets], agent.log_alpha.item()


def load_go_weights(agent, flat, O, A, H):
    nets, log_alpha = go_nets(flat, O, A, H)
    with torch.no_grad():
        (w1, b1), (w2, b2), (w3, b3) = nets[0]
        a = agent.actor
        for lin, (w, b) in ((a.fc1, (w1, b1)), (a.fc2, (w2, b2)), (a.fc_mean, (w3[:A], b3[:A])),
                            (a.fc_logstd, (w3[A:], b3[A:]))):
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))
        for q, layers in zip((agent.qf1, agent.qf2, agent.qf1_t, agent.qf2_t), nets[1:]):
            for lin, (w, b) in zip((q.fc1, q.fc2, q.fc3), layers):
                lin.weight.copy_(torch.from_numpy(w))
                lin.bias.copy_(torch.from_numpy(b))
        agent.log_alpha.fill_(log_alpha)
    agent.reset_optimizers()


def replay(fx, alpha_logp="actor", on_checkpoint=None):
    """Runs the example's SAC on the fixture's batches and noise from Go's
    initial weights; calls on_checkpoint(update, agent, metrics) where Go
    wrote weights. Returns the agent."""
    ex = load_example()
    m = fx.meta
    O, A, H, B = m["obs_dim"], m["act_dim"], m["hidden"], m["batch"]
    torch.manual_seed(0)
    agent = ex.SAC(O, A, H, -np.ones(A), np.ones(A), gamma=m["gamma"], tau=m["tau"], policy_lr=m["policy_lr"],
                   q_lr=m["q_lr"], policy_frequency=m["policy_frequency"], alpha_logp=alpha_logp)
    load_go_weights(agent, fx.params(0), O, A, H)
    pos = [0]

    def noise():
        k = pos[0]
        pos[0] += B * A
        return torch.from_numpy(fx.noise[k:k + B * A].reshape(B, A))

    ckpts = {c["Update"]: c for c in m["checkpoints"]}
    for u in range(1, m["updates"] + 1):
        idx = fx.indices[u - 1]
        t = lambda x: torch.from_numpy(np.ascontiguousarray(x[idx]))  # noqa: E731
        met = agent.update(t(fx.obs), t(fx.act), t(fx.rew), t(fx.next_obs), t(fx.term), torch.ones(B), noise=noise)
        if u in ckpts and on_checkpoint:
            on_checkpoint(u, agent, met)
    if alpha_logp == "actor":
        assert pos[0] == fx.noise.size, "the example drew %d normals, Go %d" % (pos[0], fx.noise.size)
    return agent


def max_rel_diff(agent, flat, O, A, H):
    """Largest |torch − Go| / (1e-3 + max |Go|) over each tensor, and where."""
    go, go_la = go_nets(flat, O, A, H)
    pt, pt_la = torch_nets(agent)
    names = ["actor", "qf1", "qf2", "qf1_target", "qf2_target"]
    worst = (abs(pt_la - go_la), "log_alpha")
    for name, gn, tn in zip(names, go, pt):
        for li, ((gw, gb), (tw, tb)) in enumerate(zip(gn, tn)):
            for kind, g, p in (("W", gw, tw), ("b", gb, tb)):
                d = float(np.max(np.abs(p - g)) / (1e-3 + np.max(np.abs(g))))
                if d > worst[0]:
                    worst = (d, "%s layer %d %s" % (name, li + 1, kind))
    return worst


@unittest.skipIf(torch is None, "torch is not installed")
@unittest.skipIf(shutil.which("go") is None, "the Go toolchain is not on PATH")
class TestSACLearnerMatchesGo(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        torch.set_num_threads(1)
        cls.tmp = tempfile.mkdtemp(prefix="vlmrb-sac-fixture-")
        write_fixture(cls.tmp)
        cls.fx = Fixture(cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_weights_alpha_and_losses_match(self):
        m = self.fx.meta
        O, A, H = m["obs_dim"], m["act_dim"], m["hidden"]
        ckpts = {c["Update"]: c for c in m["checkpoints"]}
        seen = []

        def check(u, agent, met):
            c = ckpts[u]
            d, where = max_rel_diff(agent, self.fx.params(u), O, A, H)
            # float32 round-off (sums in another order) grows with the updates
            self.assertLess(d, 1e-4 * u, "after %d updates the weights differ from Go's: %.3g at %s" % (u, d, where))
            self.assertAlmostEqual(met["alpha"], c["Alpha"], delta=1e-6 * u)
            self.assertAlmostEqual(met["qf1_loss"], c["QF1Loss"], delta=1e-4 * abs(c["QF1Loss"]))
            self.assertAlmostEqual(met["qf2_loss"], c["QF2Loss"], delta=1e-4 * abs(c["QF2Loss"]))
            if "actor_loss" in met:  # an update with actor steps (Go keeps the last ones otherwise)
                self.assertAlmostEqual(met["actor_loss"], c["ActorLoss"], delta=1e-4 * (1 + abs(c["ActorLoss"])))
                self.assertAlmostEqual(met["entropy"], c["Entropy"], delta=1e-4 * (1 + abs(c["Entropy"])))
            seen.append(u)

        replay(self.fx, "actor", check)
        self.assertEqual(seen, sorted(ckpts))


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--sizes":
        # python3 test_sac_learner.py --sizes 39,4,256,256,1000,30000 [fresh]: the full-size check
        torch.set_num_threads(1)
        d = tempfile.mkdtemp(prefix="vlmrb-sac-fixture-")
        write_fixture(d, sys.argv[2])
        fx = Fixture(d)
        m = fx.meta
        ck = {c["Update"]: c for c in m["checkpoints"]}
        mode = sys.argv[3] if len(sys.argv) > 3 else "actor"

        def show(u, agent, met):
            c = ck[u]
            d_, where = max_rel_diff(agent, fx.params(u), m["obs_dim"], m["act_dim"], m["hidden"])
            print("update %5d  max rel weight diff %.3g (%s)  alpha %.6f / Go %.6f  qf1_loss %.5g / %.5g  "
                  "actor_loss %.5g / %.5g  entropy %.5g / %.5g" % (
                      u, d_, where, met["alpha"], c["Alpha"], met["qf1_loss"], c["QF1Loss"],
                      met.get("actor_loss", np.nan), c["ActorLoss"], met.get("entropy", np.nan), c["Entropy"]),
                  flush=True)

        replay(fx, mode, show)
        shutil.rmtree(d)
    else:
        unittest.main()
