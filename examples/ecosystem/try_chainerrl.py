"""Exercise ChainerRL 0.8.0 as a Chainer user would.

    python -m cpuframe.compat examples/ecosystem/try_chainerrl.py

DQN / DoubleDQN for a few hundred steps on CartPole (gym 0.26 behind an
old-API wrapper, since ChainerRL 0.8 speaks gym's pre-0.26 API; a tiny
built-in env if gym's CartPole cannot run), PPO and A3C constructors and a
few hundred steps, A3C with 2 processes through train_agent_async, and a
recurrent (LSTM) DQN.  --more: also TRPO, DDPG, TD3, SAC (Pendulum-v1),
IQN, CategoricalDQN, ACER, NoisyNet DoubleDQN with prioritized replay.
Prints one PASS/FAIL line per check.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import chainer  # noqa: E402
import chainer.functions as F  # noqa: E402
import chainer.links as L  # noqa: E402

from _check import check, summary  # noqa: E402
import ecosystem_shims  # noqa: E402

ecosystem_shims.install()
ecosystem_shims.install_gym_compat()
ecosystem_shims.install_py310_compat()
print('shims applied: %s' % ecosystem_shims.applied)

import gym  # noqa: E402
import gym.spaces  # noqa: E402


class OldAPI(gym.Wrapper):
    """gym>=0.26 env -> the reset()/step() API ChainerRL 0.8 expects."""

    def reset(self, **kwargs):
        obs, info = self.env.reset(**kwargs)
        return obs

    def step(self, action):
        obs, r, terminated, truncated, info = self.env.step(action)
        if truncated and not terminated:
            info['needs_reset'] = True
        return obs, r, terminated or truncated, info


class TinyEnv(gym.Env):
    """Fallback: walk on a line of 5 cells; reward at the right end."""
    observation_space = gym.spaces.Box(0, 1, (5,), dtype=np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(self):
        self.pos, self.t = 2, 0
        return self._obs()

    def _obs(self):
        o = np.zeros(5, np.float32)
        o[self.pos] = 1
        return o

    def step(self, a):
        self.pos = min(4, max(0, self.pos + (1 if a == 1 else -1)))
        self.t += 1
        done = self.pos == 4 or self.t >= 20
        return self._obs(), float(self.pos == 4), done, {}


def make_env(seed=0):
    try:
        env = OldAPI(gym.make('CartPole-v1', disable_env_checker=True))
        env.reset(seed=seed)
        env.step(0)
        env.reset(seed=seed)
        return env
    except Exception as e:  # noqa: BLE001
        print('note: gym CartPole unusable (%s: %s); using TinyEnv'
              % (type(e).__name__, e))
        return TinyEnv()


def imports():
    import chainerrl  # noqa
    import chainerrl.agents  # noqa
    import chainerrl.experiments  # noqa
    return True


if not check('import chainerrl', imports):
    sys.exit(summary('try_chainerrl'))
import chainerrl  # noqa: E402

env = make_env()
obs_size = env.observation_space.shape[0]
n_actions = env.action_space.n
print('env: %s obs_size=%d n_actions=%d' % (type(env.unwrapped).__name__,
                                            obs_size, n_actions))


def phi(x):
    return np.asarray(x, dtype=np.float32)


def run_steps(agent, env, n_steps):
    obs = env.reset()
    reward, done, episodes = 0.0, False, 0
    for _ in range(n_steps):
        action = agent.act_and_train(obs, reward)
        obs, reward, done, info = env.step(action)
        if done or info.get('needs_reset', False):
            agent.stop_episode_and_train(obs, reward, done)
            obs, reward, done = env.reset(), 0.0, False
            episodes += 1
    agent.stop_episode()  # the last episode is cut off here
    stats = agent.get_statistics()
    # greedy evaluation step
    agent.act(env.reset())
    agent.stop_episode()
    return episodes, stats


def dqn(cls_name):
    q_func = chainerrl.q_functions.FCStateQFunctionWithDiscreteAction(
        obs_size, n_actions, n_hidden_channels=32, n_hidden_layers=2)
    opt = chainer.optimizers.Adam(eps=1e-2)
    opt.setup(q_func)
    explorer = chainerrl.explorers.ConstantEpsilonGreedy(
        epsilon=0.3, random_action_func=env.action_space.sample)
    rbuf = chainerrl.replay_buffer.ReplayBuffer(capacity=10 ** 4)
    agent = getattr(chainerrl.agents, cls_name)(
        q_func, opt, rbuf, gamma=0.95, explorer=explorer,
        replay_start_size=50, update_interval=1, target_update_interval=50,
        minibatch_size=16, phi=phi)
    episodes, stats = run_steps(agent, env, 300)
    print('    %s: %d episodes, stats %s' % (cls_name, episodes, stats))
    assert dict(stats)['average_q'] != 0
    return agent


def dqn_save_load():
    agent = dqn('DQN')
    d = os.path.join('/tmp', 'cpuframe_try_chainerrl_agent')
    agent.save(d)
    agent.load(d)


def train_with_evaluation():
    q_func = chainerrl.q_functions.FCStateQFunctionWithDiscreteAction(
        obs_size, n_actions, n_hidden_channels=16, n_hidden_layers=1)
    opt = chainer.optimizers.Adam()
    opt.setup(q_func)
    agent = chainerrl.agents.DQN(
        q_func, opt, chainerrl.replay_buffer.ReplayBuffer(10 ** 4), 0.95,
        chainerrl.explorers.ConstantEpsilonGreedy(
            0.3, env.action_space.sample),
        replay_start_size=50, phi=phi, minibatch_size=16)
    chainerrl.experiments.train_agent_with_evaluation(
        agent=agent, env=env, steps=200, eval_n_steps=None,
        eval_n_episodes=1, eval_interval=100,
        outdir='/tmp/cpuframe_try_chainerrl_out', eval_env=make_env(1),
        train_max_episode_len=100)


def a3c_model():
    return chainerrl.agents.a3c.A3CSeparateModel(
        pi=chainerrl.policies.FCSoftmaxPolicy(obs_size, n_actions,
                                              n_hidden_channels=32,
                                              n_hidden_layers=1),
        v=chainerrl.v_functions.FCVFunction(obs_size, n_hidden_channels=32,
                                            n_hidden_layers=1))


def ppo():
    model = a3c_model()
    opt = chainer.optimizers.Adam(alpha=3e-4, eps=1e-5)
    opt.setup(model)
    agent = chainerrl.agents.PPO(
        model, opt, phi=phi, update_interval=64, minibatch_size=16,
        epochs=2, clip_eps=0.2, standardize_advantages=True,
        obs_normalizer=chainerrl.links.EmpiricalNormalization(obs_size))
    episodes, stats = run_steps(agent, env, 200)
    print('    PPO: %d episodes, stats %s' % (episodes, stats))
    assert dict(stats)['n_updates'] > 0, 'PPO never updated'


def a3c_agent():
    model = a3c_model()
    opt = chainerrl.optimizers.rmsprop_async.RMSpropAsync(
        lr=7e-4, eps=1e-1, alpha=0.99)
    opt.setup(model)
    opt.add_hook(chainer.optimizer_hooks.GradientClipping(40))
    return chainerrl.agents.A3C(model, opt, t_max=5, gamma=0.99, beta=1e-2,
                                phi=phi)


def a3c():
    agent = a3c_agent()
    episodes, stats = run_steps(agent, env, 200)
    print('    A3C: %d episodes, stats %s' % (episodes, stats))


def a3c_async():
    # Parameters shared between processes through multiprocessing arrays:
    # chainerrl.misc.async_.share_params_as_shared_arrays replaces each
    # param.array (and optimizer state) by a view of shared memory.
    import shutil
    shutil.rmtree('/tmp/cpuframe_try_chainerrl_async', ignore_errors=True)
    agent = a3c_agent()
    before = [np.array(p.array, copy=True) for p in agent.shared_model.params()]
    chainerrl.experiments.train_agent_async(
        outdir='/tmp/cpuframe_try_chainerrl_async', processes=2,
        make_env=lambda process_idx, test: make_env(process_idx),
        agent=agent, steps=200, eval_interval=None, eval_n_steps=None,
        eval_n_episodes=1, max_episode_len=50)
    out = '/tmp/cpuframe_try_chainerrl_async'
    failed = [f for f in os.listdir(out) if f.endswith('_except')]
    assert not failed, 'a worker process raised (see its traceback above)'
    # the workers' updates must be visible in the parent's (shared) params
    after = [np.array(p.array) for p in agent.shared_model.params()]
    assert any(not np.array_equal(b, a) for b, a in zip(before, after)), \
        'parameters shared with the worker processes did not change'


def drqn():
    # Recurrent DQN, ChainerRL 0.8 style: StatelessRecurrentSequential with
    # L.NStepLSTM, recurrent=True, episodic replay.
    q_func = chainerrl.links.StatelessRecurrentSequential(
        L.Linear(obs_size, 16), F.relu,
        L.NStepLSTM(1, 16, 16, 0),
        L.Linear(16, n_actions),
        chainerrl.action_value.DiscreteActionValue)
    opt = chainer.optimizers.Adam()
    opt.setup(q_func)
    agent = chainerrl.agents.DQN(
        q_func, opt, chainerrl.replay_buffer.EpisodicReplayBuffer(10 ** 4),
        0.95, chainerrl.explorers.ConstantEpsilonGreedy(
            0.3, env.action_space.sample),
        replay_start_size=50, phi=phi, minibatch_size=4,
        recurrent=True, episodic_update_len=8)
    episodes, stats = run_steps(agent, env, 200)
    print('    recurrent DQN: %d episodes, stats %s' % (episodes, stats))


MORE = '--more' in sys.argv


def make_pendulum():
    env = OldAPI(gym.make('Pendulum-v1', disable_env_checker=True))
    env.reset(seed=0)
    return env


def continuous_steps(agent, n_steps=200):
    penv = make_pendulum()
    return run_steps(agent, penv, n_steps)


def pendulum_spaces():
    penv = make_pendulum()
    return (penv.observation_space.shape[0], penv.action_space.shape[0],
            penv.action_space.low, penv.action_space.high)


def trpo():
    # TRPO: conjugate gradient with Hessian-vector products of the KL
    # (chainer.grad with enable_double_backprop=True)
    o, a, low, high = pendulum_spaces()
    policy = chainerrl.policies.FCGaussianPolicyWithStateIndependentCovariance(
        o, a, n_hidden_layers=1, n_hidden_channels=32, mean_wscale=0.01,
        nonlinearity=F.tanh, var_type='diagonal',
        var_func=lambda x: F.exp(2 * x), var_param_init=0)
    vf = chainerrl.v_functions.FCVFunction(o, n_hidden_channels=32,
                                           n_hidden_layers=1,
                                           nonlinearity=F.tanh)
    vf_opt = chainer.optimizers.Adam()
    vf_opt.setup(vf)
    agent = chainerrl.agents.TRPO(
        policy=policy, vf=vf, vf_optimizer=vf_opt, update_interval=64,
        conjugate_gradient_max_iter=5, conjugate_gradient_damping=1e-1,
        gamma=0.995, lambd=0.97, vf_epochs=1, entropy_coef=0, phi=phi,
        obs_normalizer=chainerrl.links.EmpiricalNormalization(o))
    before = [np.array(p.array, copy=True) for p in policy.params()]
    episodes, stats = continuous_steps(agent, 200)
    print('    TRPO: stats %s' % (stats,))
    assert any(not np.array_equal(b, p.array)
               for b, p in zip(before, policy.params())), \
        'TRPO did not change the policy'


def ddpg():
    o, a, low, high = pendulum_spaces()
    q_func = chainerrl.q_functions.FCSAQFunction(o, a, n_hidden_channels=32,
                                                 n_hidden_layers=2)
    pi = chainerrl.policies.FCDeterministicPolicy(
        o, action_size=a, n_hidden_channels=32, n_hidden_layers=2,
        min_action=low, max_action=high, bound_action=True)
    model = chainerrl.agents.ddpg.DDPGModel(q_func=q_func, policy=pi)
    opt_a = chainer.optimizers.Adam(alpha=1e-4)
    opt_c = chainer.optimizers.Adam(alpha=1e-3)
    opt_a.setup(model['policy'])
    opt_c.setup(model['q_function'])
    agent = chainerrl.agents.DDPG(
        model, opt_a, opt_c, chainerrl.replay_buffer.ReplayBuffer(10 ** 4),
        gamma=0.99, explorer=chainerrl.explorers.AdditiveOU(),
        replay_start_size=50, target_update_method='soft',
        target_update_interval=1, update_interval=1, soft_update_tau=1e-2,
        phi=phi, minibatch_size=16)
    episodes, stats = continuous_steps(agent)
    print('    DDPG: stats %s' % (stats,))


def concat_obs_and_action(obs, action):
    return F.concat((obs, action), axis=-1)


def td3():
    o, a, low, high = pendulum_spaces()
    policy = chainer.Sequential(
        L.Linear(None, 32), F.relu, L.Linear(None, a), F.tanh,
        chainerrl.distribution.ContinuousDeterministicDistribution)

    def make_q():
        return chainer.Sequential(concat_obs_and_action, L.Linear(None, 32),
                                  F.relu, L.Linear(None, 1))
    q1, q2 = make_q(), make_q()
    opts = [chainer.optimizers.Adam(alpha=3e-4) for _ in range(3)]
    for opt, link in zip(opts, (policy, q1, q2)):
        opt.setup(link)
    agent = chainerrl.agents.TD3(
        policy, q1, q2, opts[0], opts[1], opts[2],
        chainerrl.replay_buffer.ReplayBuffer(10 ** 4), gamma=0.99,
        soft_update_tau=5e-3,
        explorer=chainerrl.explorers.AdditiveGaussian(
            scale=0.1, low=low, high=high),
        replay_start_size=50, minibatch_size=16, phi=phi,
        burnin_action_func=lambda: np.random.uniform(
            low, high).astype(np.float32))
    episodes, stats = continuous_steps(agent)
    print('    TD3: stats %s' % (stats,))


def sac():
    o, a, low, high = pendulum_spaces()

    def squashed_diagonal_gaussian_head(x):
        mean, log_scale = F.split_axis(x, 2, axis=1)
        log_scale = F.clip(log_scale, -20., 2.)
        var = F.exp(log_scale * 2)
        return chainerrl.distribution.SquashedGaussianDistribution(
            mean, var=var)
    policy = chainer.Sequential(L.Linear(None, 32), F.relu,
                                L.Linear(None, a * 2),
                                squashed_diagonal_gaussian_head)

    def make_q():
        return chainer.Sequential(concat_obs_and_action, L.Linear(None, 32),
                                  F.relu, L.Linear(None, 1))
    q1, q2 = make_q(), make_q()
    opts = [chainer.optimizers.Adam(alpha=3e-4) for _ in range(3)]
    for opt, link in zip(opts, (policy, q1, q2)):
        opt.setup(link)
    agent = chainerrl.agents.SoftActorCritic(
        policy, q1, q2, opts[0], opts[1], opts[2],
        chainerrl.replay_buffer.ReplayBuffer(10 ** 4), gamma=0.99,
        replay_start_size=50, minibatch_size=16, phi=phi,
        entropy_target=-a,
        temperature_optimizer=chainer.optimizers.Adam(alpha=3e-4),
        burnin_action_func=lambda: np.random.uniform(
            low, high).astype(np.float32))
    episodes, stats = continuous_steps(agent)
    print('    SAC: stats %s' % (stats,))


def iqn():
    q_func = chainerrl.agents.iqn.ImplicitQuantileQFunction(
        psi=chainerrl.links.Sequence(L.Linear(obs_size, 32), F.relu),
        phi=chainerrl.links.Sequence(
            chainerrl.agents.iqn.CosineBasisLinear(32, 32), F.relu),
        f=L.Linear(32, n_actions))
    opt = chainer.optimizers.Adam(alpha=1e-3)
    opt.setup(q_func)
    agent = chainerrl.agents.IQN(
        q_func, opt, chainerrl.replay_buffer.ReplayBuffer(10 ** 4), 0.95,
        chainerrl.explorers.ConstantEpsilonGreedy(
            0.3, env.action_space.sample),
        replay_start_size=50, target_update_interval=50, phi=phi,
        minibatch_size=16)
    episodes, stats = run_steps(agent, env, 200)
    print('    IQN: stats %s' % (stats,))


def categorical_dqn():
    q_func = chainerrl.q_functions.\
        DistributionalFCStateQFunctionWithDiscreteAction(
            obs_size, n_actions, n_atoms=51, v_min=-10, v_max=10,
            n_hidden_channels=32, n_hidden_layers=1)
    opt = chainer.optimizers.Adam(alpha=1e-3)
    opt.setup(q_func)
    agent = chainerrl.agents.CategoricalDQN(
        q_func, opt, chainerrl.replay_buffer.ReplayBuffer(10 ** 4), 0.95,
        chainerrl.explorers.ConstantEpsilonGreedy(
            0.3, env.action_space.sample),
        replay_start_size=50, target_update_interval=50, phi=phi,
        minibatch_size=16)
    episodes, stats = run_steps(agent, env, 200)
    print('    CategoricalDQN: stats %s' % (stats,))


def acer():
    model = chainerrl.agents.acer.ACERSeparateModel(
        pi=chainerrl.policies.FCSoftmaxPolicy(obs_size, n_actions, 32, 1),
        q=chainerrl.q_functions.FCStateQFunctionWithDiscreteAction(
            obs_size, n_actions, 32, 1))
    opt = chainerrl.optimizers.rmsprop_async.RMSpropAsync(
        lr=7e-4, eps=1e-2, alpha=0.99)
    opt.setup(model)
    agent = chainerrl.agents.ACER(
        model, opt, t_max=5, gamma=0.99,
        replay_buffer=chainerrl.replay_buffer.EpisodicReplayBuffer(10 ** 4),
        n_times_replay=1, replay_start_size=50, beta=1e-2, phi=phi)
    episodes, stats = run_steps(agent, env, 200)
    print('    ACER: stats %s' % (stats,))


def noisy_net_dqn():
    q_func = chainerrl.q_functions.FCStateQFunctionWithDiscreteAction(
        obs_size, n_actions, n_hidden_channels=32, n_hidden_layers=1)
    chainerrl.links.to_factorized_noisy(q_func)
    opt = chainer.optimizers.Adam()
    opt.setup(q_func)
    agent = chainerrl.agents.DoubleDQN(
        q_func, opt, chainerrl.replay_buffer.PrioritizedReplayBuffer(10 ** 4),
        0.95, chainerrl.explorers.Greedy(), replay_start_size=50,
        target_update_interval=50, phi=phi, minibatch_size=16)
    episodes, stats = run_steps(agent, env, 200)
    print('    NoisyNet DoubleDQN + PER: stats %s' % (stats,))


check('DQN 300 steps', dqn, 'DQN')
check('DoubleDQN 300 steps', dqn, 'DoubleDQN')
check('DQN save/load', dqn_save_load)
check('experiments.train_agent_with_evaluation (DQN, 200 steps)',
      train_with_evaluation)
check('PPO constructor + 200 steps', ppo)
check('A3C constructor + 200 steps', a3c)
check('A3C train_agent_async processes=2', a3c_async)
check('recurrent DQN (StatelessRecurrentSequential + NStepLSTM)', drqn)

if MORE:
    check('TRPO (Hessian-vector products) Pendulum 200 steps', trpo)
    check('DDPG Pendulum 200 steps', ddpg)
    check('TD3 Pendulum 200 steps', td3)
    check('SoftActorCritic Pendulum 200 steps', sac)
    check('IQN 200 steps', iqn)
    check('CategoricalDQN 200 steps', categorical_dqn)
    check('ACER 200 steps', acer)
    check('NoisyNet DoubleDQN + PrioritizedReplayBuffer 200 steps',
          noisy_net_dqn)
sys.exit(summary('try_chainerrl'))
