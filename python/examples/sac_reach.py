"""CleanRL-style SAC (sac_continuous_action.py) on vlmrb's reach through
the Python package, with uniform replay or VLM-RB replay (vlmrb's Go buffer
with the pixel scorer scoring rendered clips asynchronously).

Defaults are robot-train train's SAC on reach as issue 50 compared them
(rundir.DefaultConfig before studies/main-job moved the default to
reach-center with γ 0.95; the same as `robot-train train --task reach
--gamma 0.99`): 30000 env steps over 2 envs, episodes of 200 steps, 2000
random steps, one update per env step, batch 256, 256×256 nets, lr 3e-4
(actor) and 1e-3 (critics and α), policy update every 2, τ 0.005, γ 0.99,
automatic entropy; VLM-RB: clips of 32 frames every 8 steps, 224×224
frames, one scorer worker with lag 64, λ rising to 0.5 over 10000 samples.
Evaluation: robot-train's own 50 evaluation episodes of the seed, with the
deterministic and the stochastic policy.

The learner is vlmrb's SAC (package sac) in PyTorch: python/tests/
test_sac_learner.py checks it against the Go agent update by update. It
differs from CleanRL's in one place, on purpose: the α step reuses the
actor step's log π (as Stable-Baselines3 and vlmrb); --alpha-logp fresh
draws a new sample as CleanRL does. Over 10 seeds each, this script's
deterministic success on reach is robot-train's within −0.17…+0.10 (95% CI
of the difference; studies/python-parity.md). robot-train's default run
(reach-center, γ 0.95) is `--task reach-center --gamma 0.95`.

    make python
    PYTHONPATH=python /usr/bin/python3 python/examples/sac_reach.py --replay uniform --seed 1
    PYTHONPATH=python /usr/bin/python3 python/examples/sac_reach.py --replay vlmrb --seed 1 --out sac-vlmrb-1.json
"""

import argparse
import json
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import vlmrb

LOG_STD_MAX, LOG_STD_MIN = 2, -5


class SoftQNetwork(nn.Module):
    def __init__(self, od, ad, hidden):
        super().__init__()
        self.fc1 = nn.Linear(od + ad, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, 1)

    def forward(self, x, a):
        x = torch.cat([x, a], 1)
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


class Actor(nn.Module):
    def __init__(self, od, ad, hidden, low, high):
        super().__init__()
        self.fc1 = nn.Linear(od, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc_mean = nn.Linear(hidden, ad)
        self.fc_logstd = nn.Linear(hidden, ad)
        self.register_buffer("action_scale", torch.tensor((high - low) / 2.0, dtype=torch.float32))
        self.register_buffer("action_bias", torch.tensor((high + low) / 2.0, dtype=torch.float32))

    def forward(self, x):
        x = F.relu(self.fc2(F.relu(self.fc1(x))))
        mean = self.fc_mean(x)
        log_std = torch.tanh(self.fc_logstd(x))
        log_std = LOG_STD_MIN + 0.5 * (LOG_STD_MAX - LOG_STD_MIN) * (log_std + 1)
        return mean, log_std

    def get_action(self, x, eps=None):
        """A tanh-squashed Gaussian sample, its log-density and tanh(mean).
        eps: the standard normal noise (drawn here when None), so a test can
        feed another implementation's draws."""
        mean, log_std = self(x)
        std = log_std.exp()
        if eps is None:
            eps = torch.randn_like(mean)
        x_t = mean + std * eps  # Normal(mean, std).rsample()
        y_t = torch.tanh(x_t)
        action = y_t * self.action_scale + self.action_bias
        log_prob = -0.5 * eps.pow(2) - log_std - 0.5 * math.log(2 * math.pi)  # Normal.log_prob(x_t)
        log_prob = log_prob - torch.log(self.action_scale * (1 - y_t.pow(2)) + 1e-6)
        log_prob = log_prob.sum(1, keepdim=True)
        mean = torch.tanh(mean) * self.action_scale + self.action_bias
        return action, log_prob, mean


class SAC:
    """CleanRL's SAC update (sac_continuous_action.py): twin critics with
    Polyak targets, PolicyFrequency actor and α steps every PolicyFrequency
    updates on the same batch, α = exp(log α) tuned toward −|A|.

    alpha_logp chooses the log π of the α step: "fresh" draws a new sample
    after the actor step (CleanRL), "actor" (the default) reuses the actor
    step's own (Stable-Baselines3, and vlmrb's Go SAC). noise, when given, is a
    callable returning the next standard normal (batch, act_dim) tensor, in
    the order the update uses them (target actions, then per actor step
    its sample, then with "fresh" the α step's)."""

    def __init__(self, od, ad, hidden, low, high, gamma=0.99, tau=0.005, policy_lr=3e-4, q_lr=1e-3,
                 policy_frequency=2, alpha_logp="actor"):
        if alpha_logp not in ("fresh", "actor"):
            raise ValueError("alpha_logp must be 'fresh' or 'actor', got %r" % (alpha_logp,))
        self.actor = Actor(od, ad, hidden, low, high)
        self.qf1, self.qf2 = SoftQNetwork(od, ad, hidden), SoftQNetwork(od, ad, hidden)
        self.qf1_t, self.qf2_t = SoftQNetwork(od, ad, hidden), SoftQNetwork(od, ad, hidden)
        self.qf1_t.load_state_dict(self.qf1.state_dict())
        self.qf2_t.load_state_dict(self.qf2.state_dict())
        self.q_opt = torch.optim.Adam(list(self.qf1.parameters()) + list(self.qf2.parameters()), lr=q_lr)
        self.a_opt = torch.optim.Adam(self.actor.parameters(), lr=policy_lr)
        self.target_entropy = -float(ad)
        self.log_alpha = torch.zeros(1, requires_grad=True)
        self.alpha = self.log_alpha.exp().item()
        self.al_opt = torch.optim.Adam([self.log_alpha], lr=q_lr)
        self.gamma, self.tau, self.policy_frequency, self.alpha_logp = gamma, tau, policy_frequency, alpha_logp
        self.updates = 0

    def reset_optimizers(self):
        """Fresh Adam state (after loading weights into the networks)."""
        self.q_opt = torch.optim.Adam(list(self.qf1.parameters()) + list(self.qf2.parameters()),
                                      lr=self.q_opt.defaults["lr"])
        self.a_opt = torch.optim.Adam(self.actor.parameters(), lr=self.a_opt.defaults["lr"])
        self.al_opt = torch.optim.Adam([self.log_alpha], lr=self.al_opt.defaults["lr"])
        self.alpha = self.log_alpha.exp().item()

    def update(self, o, a, r, no, d, w, noise=None):
        """One gradient step on a batch of float32 tensors (obs, actions,
        rewards, next obs, terminated, importance weights). Returns the
        metrics as CleanRL names them."""
        nz = noise or (lambda: None)
        m = {}
        with torch.no_grad():
            na, nlp, _ = self.actor.get_action(no, nz())
            qn = torch.min(self.qf1_t(no, na), self.qf2_t(no, na)) - self.alpha * nlp
            y = r + (1 - d) * self.gamma * qn.view(-1)
        q1, q2 = self.qf1(o, a).view(-1), self.qf2(o, a).view(-1)
        qf1_loss, qf2_loss = (w * (q1 - y) ** 2).mean(), (w * (q2 - y) ** 2).mean()
        self.q_opt.zero_grad()
        (qf1_loss + qf2_loss).backward()
        self.q_opt.step()
        m["qf1_loss"], m["qf2_loss"], m["qf1_values"] = qf1_loss.item(), qf2_loss.item(), q1.mean().item()
        if self.updates % self.policy_frequency == 0:
            for _ in range(self.policy_frequency):
                pi, lp, _ = self.actor.get_action(o, nz())
                actor_loss = (self.alpha * lp - torch.min(self.qf1(o, pi), self.qf2(o, pi))).mean()
                self.a_opt.zero_grad()
                actor_loss.backward()
                self.a_opt.step()
                if self.alpha_logp == "fresh":
                    with torch.no_grad():
                        _, lp, _ = self.actor.get_action(o, nz())
                lp = lp.detach()
                alpha_loss = (-self.log_alpha.exp() * (lp + self.target_entropy)).mean()
                self.al_opt.zero_grad()
                alpha_loss.backward()
                self.al_opt.step()
                self.alpha = self.log_alpha.exp().item()
                m["actor_loss"], m["alpha_loss"], m["entropy"] = actor_loss.item(), alpha_loss.item(), -lp.mean().item()
        self.updates += 1
        with torch.no_grad():
            for net, tgt in ((self.qf1, self.qf1_t), (self.qf2, self.qf2_t)):
                for pp, tp in zip(net.parameters(), tgt.parameters()):
                    tp.data.mul_(1 - self.tau).add_(self.tau * pp.data)
        m["alpha"] = self.alpha
        return m


_U64 = (1 << 64) - 1
EVAL_SEED_SALT = 0x5EEDE7A1  # train.evalSeedSalt


def episode_seed(base, i, k):
    """control.EpisodeSeed: the seed of env i's k-th episode from base
    (a splitmix64 finaliser of base, i and k)."""
    x = base ^ ((0x9E3779B97F4A7C15 * (i + 1)) & _U64) ^ ((0xBF58476D1CE4E5B9 * (k + 1)) & _U64)
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & _U64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & _U64
    x ^= x >> 31
    return x


def evaluate(actor, args, seed, stochastic=False):
    """Success rate over args.eval_episodes on robot-train's own evaluation
    episodes (episode k from control.EpisodeSeed(seed ^ evalSeedSalt, 0, k),
    as train.Evaluate draws them), so the two are compared on the same goals.
    An episode succeeds when info success is set at any step (MetaWorld's and
    robot-train's rule). stochastic samples the policy instead of tanh(mean)."""
    env = vlmrb.make(args.task, max_episode_steps=args.episode_len)
    wins, returns = 0, []
    for k in range(args.eval_episodes):
        obs, _ = env.reset(seed=episode_seed(seed ^ EVAL_SEED_SALT, 0, k))
        ok, ret = False, 0.0
        while True:
            with torch.no_grad():
                sample, _, mean = actor.get_action(torch.as_tensor(obs[None], dtype=torch.float32))
            a = sample if stochastic else mean
            obs, r, te, tr, info = env.step(a[0].numpy().astype(np.float64))
            ret += r
            ok = ok or info.get("success", 0) > 0
            if te or tr:
                break
        wins += ok
        returns.append(ret)
    env.close()
    return wins / args.eval_episodes, float(np.mean(returns))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--task", default="reach")
    p.add_argument("--replay", choices=["uniform", "vlmrb"], default="uniform")
    p.add_argument("--scorer", default="pixel", help="pixel | oracle | openai (vlmrb replay)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--steps", type=int, default=30000, help="env steps over all envs")
    p.add_argument("--num-envs", type=int, default=2)
    p.add_argument("--episode-len", type=int, default=200)
    p.add_argument("--learning-starts", type=int, default=2000)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--hidden", type=int, default=256)
    p.add_argument("--buffer-size", type=int, default=1_000_000)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--tau", type=float, default=0.005)
    p.add_argument("--policy-lr", type=float, default=3e-4)
    p.add_argument("--q-lr", type=float, default=1e-3)
    p.add_argument("--policy-frequency", type=int, default=2)
    p.add_argument("--alpha-logp", choices=["fresh", "actor"], default="actor",
                   help="log π of the α step: the actor step's (vlmrb's SAC, SB3; the default) or a fresh "
                        "sample (CleanRL)")
    p.add_argument("--frame-size", type=int, default=224)
    p.add_argument("--clip-len", type=int, default=32)
    p.add_argument("--stride", type=int, default=8)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--lag", type=int, default=64)
    p.add_argument("--lambda-warmup", type=int, default=10000)
    p.add_argument("--eval-episodes", type=int, default=50, help="robot-train's evaluation episodes 0..N-1 of the seed")
    p.add_argument("--log-every", type=int, default=5000, help="env steps between log lines")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--out", help="write a JSON summary here (atomically)")
    args = p.parse_args()

    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    n = args.num_envs
    vlm = args.replay == "vlmrb"
    envs = vlmrb.make_vec(args.task, n, max_episode_steps=args.episode_len,
                          width=args.frame_size, height=args.frame_size)
    od = envs.single_observation_space.shape[0]
    ad = envs.single_action_space.shape[0]
    low, high = envs.single_action_space.low, envs.single_action_space.high

    agent = SAC(od, ad, args.hidden, low, high, gamma=args.gamma, tau=args.tau, policy_lr=args.policy_lr,
                q_lr=args.q_lr, policy_frequency=args.policy_frequency, alpha_logp=args.alpha_logp)
    actor = agent.actor

    updates_total = max(args.steps - args.learning_starts, 1)
    rb_opts = dict(sampler="vlmrb", scorer=args.scorer, task=args.task, clip_len=args.clip_len,
                   stride=args.stride, workers=args.workers, lag=args.lag, warmup_steps=args.lambda_warmup,
                   beta_steps=updates_total) if vlm else dict(sampler="uniform")
    rb = vlmrb.ReplayBuffer(min(args.buffer_size, args.steps), od, ad, num_envs=n, seed=args.seed, **rb_opts)

    frames = np.empty((n, args.frame_size, args.frame_size, 3), np.uint8)
    obs, info = envs.reset(seed=args.seed)
    prev_progress = info.get("progress", np.zeros(n))  # of obs: the oracle scorer reads it
    if vlm:
        envs.render_all(out=frames)
    episodes = np.arange(n, dtype=np.int64)  # a unique id per episode
    next_episode = n
    autoreset = np.zeros(n, bool)
    ep_ret, ep_succ = np.zeros(n), np.zeros(n, bool)
    done_succ, done_ret = [], []
    rng = np.random.default_rng(args.seed)
    t0, updates, log_at = time.time(), 0, args.log_every
    step = 0
    while step < args.steps:
        if step < args.learning_starts:
            actions = rng.uniform(low, high, size=(n, ad))
        else:
            with torch.no_grad():
                a, _, _ = actor.get_action(torch.as_tensor(obs, dtype=torch.float32))
            actions = a.numpy().astype(np.float64)
        next_obs, rewards, term, trunc, info = envs.step(actions)
        valid = ~autoreset  # NEXT_STEP: an autoreset step is no transition
        kw = {}
        if vlm:
            kw["frames"] = frames
            if args.scorer == "oracle":
                kw["progress"] = prev_progress
        rb.add(obs, actions, rewards, next_obs, term, trunc, episodes, valid=valid, **kw)
        if vlm:
            envs.render_all(out=frames)  # o_{t+1}; for ended episodes o_T, then the reset frame
        prev_progress = info.get("progress", np.zeros(n))
        for i in range(n):
            if autoreset[i]:
                episodes[i] = next_episode
                next_episode += 1
                ep_ret[i], ep_succ[i] = 0, False
            else:
                ep_ret[i] += rewards[i]
                ep_succ[i] |= info["success"][i] > 0
                if term[i] or trunc[i]:
                    done_succ.append(ep_succ[i])
                    done_ret.append(ep_ret[i])
        autoreset = term | trunc
        obs = next_obs
        step += int(valid.sum())

        if step >= args.learning_starts:
            for _ in range(int(valid.sum())):  # one update per env step
                b = rb.sample(args.batch_size)
                agent.update(torch.from_numpy(b.obs), torch.from_numpy(b.actions), torch.from_numpy(b.rewards),
                             torch.from_numpy(b.next_obs), torch.from_numpy(b.terminated), torch.from_numpy(b.weights))
                updates += 1

        if step >= log_at or step >= args.steps:
            log_at += args.log_every
            recent = done_succ[-20:]
            line = "step %6d  episodes %4d  train success(last 20) %.2f  return %.1f  alpha %.3f  sps %.0f" % (
                step, len(done_succ), np.mean(recent) if recent else 0, np.mean(done_ret[-20:]) if done_ret else 0,
                agent.alpha, step / (time.time() - t0))
            if vlm:
                m = rb.metrics()
                s = m["scoring"]
                line += "  vlm/clips_scored %d dropped %d scored_fraction %.3f lambda %.3f prioritized_frac %.3f" % (
                    s["scored"], s["dropped"], m["scored_slots"] / max(m["len"], 1), m["lambda"],
                    m["prioritized_draws"] / max(m["drawn"], 1))
            print(line, flush=True)

    success, ret = evaluate(actor, args, args.seed)
    success_stoch, ret_stoch = evaluate(actor, args, args.seed, stochastic=True)
    wall = time.time() - t0
    summary = dict(task=args.task, replay=args.replay, scorer=args.scorer if vlm else None, seed=args.seed,
                   steps=step, updates=updates, eval_success=success, eval_return=ret,
                   eval_success_stochastic=success_stoch, eval_return_stochastic=ret_stoch,
                   train_episodes=len(done_succ), wall_s=wall, args=vars(args))
    if vlm:
        summary["replay_metrics"] = rb.metrics()
    print("final: eval success %.2f (stochastic policy %.2f) over %d episodes, return %.1f, %d updates, %.0f s" % (
        success, success_stoch, args.eval_episodes, ret, updates, wall), flush=True)
    rb.close()
    envs.close()
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(summary, f, indent=1, default=float)
        os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
