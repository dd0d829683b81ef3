#!/usr/bin/env python
# A DQN agent as Chainer users write one (the shape of Chainer's
# examples/reinforcement_learning/dqn_cartpole.py): a 64-unit MLP Q-function,
# an action chosen at batch 1 under no_backprop_mode every environment step,
# a replay buffer, an update from a minibatch of 64 with a target network
# (copied with copyparams), Huber-free mean squared error, Adam. The
# environment is a small NumPy simulation (gym is not needed). Prints one
# JSON line.
import argparse
import collections
import copy
import json
import random
import time

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from chainer import optimizers


class QFunction(chainer.Chain):

    def __init__(self, obs_size, n_actions, n_units=64):
        super(QFunction, self).__init__()
        with self.init_scope():
            self.l0 = L.Linear(obs_size, n_units)
            self.l1 = L.Linear(n_units, n_units)
            self.l2 = L.Linear(n_units, n_actions)

    def forward(self, x):
        h = F.relu(self.l0(x))
        h = F.relu(self.l1(h))
        return self.l2(h)


class PoleEnv(object):
    """A cart-pole-like system: 4 observations, 2 actions."""

    def __init__(self, rng):
        self.rng = rng

    def reset(self):
        self.state = self.rng.uniform(-0.05, 0.05, 4).astype(np.float32)
        self.t = 0
        return self.state

    def step(self, action):
        x, v, th, w = self.state
        force = 1.0 if action == 1 else -1.0
        w = w + 0.02 * (9.8 * np.sin(th) - 0.5 * force)
        th = th + 0.02 * w
        v = v + 0.02 * force
        x = x + 0.02 * v
        self.state = np.array([x, v, th, w], np.float32)
        self.t += 1
        done = abs(th) > 0.2 or abs(x) > 2.4 or self.t >= 200
        return self.state, 1.0, done


def get_greedy_action(Q, obs):
    xp = Q.xp
    obs = xp.asarray(obs[None], dtype=np.float32)
    with chainer.no_backprop_mode():
        q = Q(obs).array[0]
    return int(q.argmax())


def update(Q, target_Q, opt, samples, gamma=0.99):
    xp = Q.xp
    obs = xp.asarray([s[0] for s in samples], dtype=np.float32)
    action = xp.asarray([s[1] for s in samples], dtype=np.int32)
    reward = xp.asarray([s[2] for s in samples], dtype=np.float32)
    done = xp.asarray([s[3] for s in samples], dtype=np.float32)
    obs_next = xp.asarray([s[4] for s in samples], dtype=np.float32)
    y = F.select_item(Q(obs), action)
    with chainer.no_backprop_mode():
        next_q = F.max(target_Q(obs_next), axis=1)
    target = reward + gamma * (1 - done) * next_q
    loss = F.mean_squared_error(y, target)
    Q.cleargrads()
    loss.backward()
    opt.update()
    return float(loss.array)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument('--device', '-d', default='-1')
    parser.add_argument('--steps', type=int, default=1500)
    parser.add_argument('--batch-size', type=int, default=64)
    args = parser.parse_args()

    rng = np.random.RandomState(0)
    random.seed(0)
    env = PoleEnv(rng)
    device = chainer.get_device(args.device)
    Q = QFunction(4, 2)
    Q.to_device(device)
    device.use()
    target_Q = copy.deepcopy(Q)
    opt = optimizers.Adam(eps=1e-2)
    opt.setup(Q)
    D = collections.deque(maxlen=10 ** 6)

    start = time.perf_counter()
    obs = env.reset()
    losses = []
    for step in range(args.steps):
        if rng.rand() < 0.3 or step < 200:
            action = int(rng.randint(2))
        else:
            action = get_greedy_action(Q, obs)
        new_obs, reward, done = env.step(action)
        D.append((obs, action, reward, done, new_obs))
        obs = env.reset() if done else new_obs
        if len(D) >= 200:
            losses.append(update(Q, target_Q, opt,
                                 random.sample(D, args.batch_size)))
        if step % 100 == 0:
            target_Q = copy.deepcopy(Q)
    seconds = time.perf_counter() - start
    print(json.dumps({'seconds': seconds, 'loss': float(np.mean(losses))}))


if __name__ == '__main__':
    main()
