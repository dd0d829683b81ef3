"""Exercise ChainerUI 0.11.0 with a Chainer Trainer, as a user would.

    python -m cpuframe.compat examples/ecosystem/try_chainerui.py

1. A Trainer run with LogReport, chainerui.utils.save_args and
   chainerui.extensions.CommandsExtension writes its result directory.
2. The `chainerui` server (its own process; it does not import chainer) is
   started on 127.0.0.1 with a private CHAINERUI_ROOT, the directory is
   registered as a project, and its REST API is queried with urllib: the
   run's log (main/loss per epoch) and args must be there.
3. A second, long Trainer run is driven through the server's commands API:
   adjust_hyperparam (Adam alpha), take_snapshot, stop.
Prints one PASS/FAIL line per check.
"""
import argparse
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import chainer  # noqa: E402
import chainer.functions as F  # noqa: E402
import chainer.links as L  # noqa: E402
from chainer import training  # noqa: E402
from chainer.training import extensions  # noqa: E402

from _check import check, summary  # noqa: E402
import ecosystem_shims  # noqa: E402

ecosystem_shims.install()
print('shims applied: %s' % ecosystem_shims.applied)


def imports():
    import chainerui  # noqa
    import chainerui.extensions  # noqa
    import chainerui.utils  # noqa
    return True


if not check('import chainerui, chainerui.extensions, chainerui.utils', imports):
    sys.exit(summary('try_chainerui'))
from chainerui.extensions import CommandsExtension  # noqa: E402
from chainerui.utils import save_args  # noqa: E402

WORK = tempfile.mkdtemp(prefix='cpuframe_try_chainerui_')
PROJECT = os.path.join(WORK, 'results')
os.makedirs(PROJECT)
ENV = dict(os.environ, CHAINERUI_ROOT=os.path.join(WORK, 'root'))
BIN = os.path.dirname(os.path.abspath(sys.executable))
CHAINERUI = os.path.join(BIN, 'chainerui')


def make_trainer(out, stop, args):
    r = np.random.RandomState(0)
    x = r.normal(0, 1, (200, 16)).astype(np.float32)
    t = (x[:, 0] > 0).astype(np.int32)
    model = L.Classifier(chainer.Sequential(L.Linear(16, 16), F.relu,
                                            L.Linear(16, 2)))
    opt = chainer.optimizers.Adam(alpha=args.alpha)
    opt.setup(model)
    it = chainer.iterators.SerialIterator(
        chainer.datasets.TupleDataset(x, t), 20)
    updater = training.StandardUpdater(it, opt)
    trainer = training.Trainer(updater, stop, out=out)
    trainer.extend(extensions.LogReport(trigger=(1, 'epoch')))
    trainer.extend(CommandsExtension())
    save_args(args, out)
    return trainer


def run1():
    args = argparse.Namespace(alpha=0.01, epoch=3, unit=16)
    out = os.path.join(PROJECT, 'run1')
    trainer = make_trainer(out, (args.epoch, 'epoch'), args)
    trainer.run()
    with open(os.path.join(out, 'log')) as f:
        log = json.load(f)
    assert len(log) == 3 and 'main/loss' in log[0], log
    with open(os.path.join(out, 'args')) as f:
        assert json.load(f)['alpha'] == 0.01
    # CommandsExtension keeps its job state next to the log
    assert os.path.exists(os.path.join(out, '.chainerui_commands'))


check('Trainer + LogReport + save_args + CommandsExtension', run1)

server = None
port = None


def api(path, data=None):
    req = urllib.request.Request(
        'http://127.0.0.1:%d/api/v1/%s' % (port, path),
        data=None if data is None else json.dumps(data).encode(),
        headers={'Content-Type': 'application/json'},
        method='GET' if data is None else 'POST')
    with urllib.request.urlopen(req, timeout=20) as res:
        return json.loads(res.read().decode())


def start_server():
    global server, port
    for cmd in (['db', 'create'], ['db', 'upgrade']):
        subprocess.run([CHAINERUI] + cmd, env=ENV, check=True,
                       capture_output=True, timeout=120)
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    # WORKAROUND (d): chainerui/app.py calls gevent.signal(SIGTERM, ...),
    # renamed gevent.signal_handler in gevent 1.5 (no older gevent builds on
    # Python 3.11): start the server through a one-line alias.
    launcher = ('import sys, gevent; '
                'gevent.signal = gevent.signal_handler; '
                'from chainerui.app import main; '
                'sys.argv[0] = "chainerui"; main()')
    server = subprocess.Popen(
        [sys.executable, '-c', launcher, 'server', '-H', '127.0.0.1', '-p',
         str(port)], env=ENV,
        stdout=open(os.path.join(WORK, 'server.log'), 'w'),
        stderr=subprocess.STDOUT)
    for _ in range(60):
        if server.poll() is not None:
            raise RuntimeError('server exited: %s' % open(
                os.path.join(WORK, 'server.log')).read()[-2000:])
        try:
            api('projects')
            return True
        except (urllib.error.URLError, ConnectionError):
            time.sleep(0.5)
    raise RuntimeError('server did not answer')


def project_results():
    subprocess.run([CHAINERUI, 'project', 'create', '-d', PROJECT, '-n',
                    'cpuframe'], env=ENV, check=True, capture_output=True,
                   timeout=120)
    projects = api('projects')['projects']
    project = [p for p in projects if p['name'] == 'cpuframe'][0]
    return project['id'], api('projects/%d/results' % project['id'])


def read_log():
    pid, res = project_results()
    results = {os.path.basename(r['pathName']): r for r in res['results']}
    assert 'run1' in results, list(results)
    r = results['run1']
    logs = r['logs']
    assert len(logs) == 3, logs
    keys = set(logs[0]['logDict'])
    assert 'main/loss' in keys and 'epoch' in keys, keys
    args = {a['key']: a['value'] for a in r['args']}
    assert float(args['alpha']) == 0.01, args
    print('    run1 via API: %d log entries, keys %s, args %s'
          % (len(logs), sorted(keys), args))


def commands():
    args = argparse.Namespace(alpha=0.01, epoch=10000, unit=16)
    out = os.path.join(PROJECT, 'run2')
    trainer = make_trainer(out, (args.epoch, 'epoch'), args)
    errors = []

    def target():
        try:
            trainer.run()
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    th = threading.Thread(target=target, daemon=True)
    th.start()
    try:
        deadline = time.time() + 60
        while not os.path.exists(os.path.join(out, 'log')):
            assert time.time() < deadline, 'no log written'
            time.sleep(0.2)
        rid = []
        while not rid:  # the server rescans a project at most every 4 s
            assert time.time() < deadline, 'run2 not registered'
            pid, res = project_results()
            rid = [r['id'] for r in res['results']
                   if os.path.basename(r['pathName']) == 'run2']
            time.sleep(1)
        rid = rid[0]
        base = 'projects/%d/results/%d/commands' % (pid, rid)

        def answered():
            try:
                with open(os.path.join(out, 'commands')) as f:
                    return sum(1 for c in json.load(f) if c.get('response'))
            except (IOError, ValueError):
                return 0

        # One command at a time: the server (append) and CommandsExtension
        # (responses) both rewrite the 'commands' file without a lock, so
        # commands posted back to back can be lost -- chainerui's race.
        for i, command in enumerate([
                {'name': 'adjust_hyperparams',
                 'body': {'optimizer': 'Adam',
                          'hyperparam': {'alpha': 0.001}}},
                {'name': 'take_snapshot'},
                {'name': 'stop'}]):
            api(base, command)
            while answered() < i + 1 and th.is_alive():
                assert time.time() < deadline + 60, \
                    'command %r not answered' % command['name']
                time.sleep(0.2)
        th.join(60)
        assert not th.is_alive(), 'the stop command did not stop training'
    finally:
        if th.is_alive():
            trainer.stop_trigger = lambda trainer: True
    if errors:
        raise errors[0]
    opt = trainer.updater.get_optimizer('main')
    assert opt.alpha == 0.001, opt.alpha
    snaps = [f for f in os.listdir(out) if f.startswith('snapshot_iter_')]
    assert snaps, os.listdir(out)
    with open(os.path.join(out, 'commands')) as f:
        cmds = json.load(f)
    print('    commands: %s; snapshot %s; stopped at epoch %d'
          % ([(c['name'], c['response']['status'] if c.get('response')
               else None) for c in cmds], snaps, trainer.updater.epoch))
    # the snapshot can be loaded back into a fresh trainer
    t2 = make_trainer(os.path.join(WORK, 'run3'), (1, 'epoch'), args)
    chainer.serializers.load_npz(os.path.join(out, snaps[0]), t2)
    assert t2.updater.iteration == int(snaps[0].split('_')[-1])


try:
    if check('chainerui db create/upgrade + server start', start_server):
        check('server API reads the Trainer log and args', read_log)
        check('CommandsExtension driven by the server API '
              '(adjust_hyperparams, take_snapshot, stop)', commands)
finally:
    if server is not None:
        server.terminate()
        try:
            server.wait(10)
        except subprocess.TimeoutExpired:
            server.kill()
    shutil.rmtree(WORK, ignore_errors=True)

sys.exit(summary('try_chainerui'))
