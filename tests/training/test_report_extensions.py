import io
import json
import os
import re
import stat

import pytest

from cpuframe import training
from cpuframe.training import extensions


def _clock(monkeypatch, step=0.25):
    from cpuframe.training import trainer as trainer_module
    now = [0.0]

    def tick():
        now[0] += step
        return now[0]

    monkeypatch.setattr(trainer_module, '_get_time', tick)


def _values(i):
    return {'loss': float(i), 'acc': 10.0 * i, 'note': 'text'}


def _trainer(counting_updater, tmp_path, stop=(3, 'epoch'), ipe=4,
             values=_values):
    return training.Trainer(counting_updater(ipe, values=values), stop,
                            out=str(tmp_path))


def test_log_report_means_and_json_file(counting_updater, tmp_path,
                                        monkeypatch):
    _clock(monkeypatch)
    trainer = _trainer(counting_updater, tmp_path)
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.run()
    log = log_report.log
    assert [e['epoch'] for e in log] == [1, 2, 3]
    assert [e['iteration'] for e in log] == [4, 8, 12]
    # iterations 1-4 report loss 1..4: mean 2.5; then 6.5 and 10.5
    assert [e['loss'] for e in log] == [2.5, 6.5, 10.5]
    assert [e['acc'] for e in log] == [25.0, 65.0, 105.0]
    assert all('note' not in e for e in log)
    # the clock ticks 0.25 s per read: start, then one read per entry
    assert [e['elapsed_time'] for e in log] == [0.25, 0.5, 0.75]
    assert list(log[0]) == ['loss', 'acc', 'epoch', 'iteration',
                            'elapsed_time']
    text = (tmp_path / 'log').read_text()
    assert json.loads(text) == log
    assert text.startswith('[\n    {\n        "loss": 2.5,\n        '
                           '"acc": 25.0,\n        "epoch": 1,\n')
    assert text == json.dumps(log, indent=4)
    assert sorted(os.listdir(tmp_path)) == ['log']


@pytest.mark.parametrize('mask, mode', [(0o022, 0o644), (0o077, 0o600)])
def test_log_file_mode_follows_the_umask(counting_updater, tmp_path, umask,
                                         mask, mode):
    umask(mask)
    trainer = _trainer(counting_updater, tmp_path, stop=(1, 'epoch'))
    trainer.extend(extensions.LogReport())
    trainer.run()
    assert stat.S_IMODE((tmp_path / 'log').stat().st_mode) == mode
    assert os.listdir(tmp_path) == ['log']


def test_log_report_options(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, tmp_path, stop=(4, 'iteration'))

    def postprocess(entry):
        entry['double'] = entry['loss'] * 2

    a = extensions.LogReport(keys=['loss'], trigger=(2, 'iteration'),
                             postprocess=postprocess,
                             filename='log_{iteration}')
    b = extensions.LogReport(log_name=None, trigger=(1, 'iteration'))
    trainer.extend(a)
    trainer.extend(b, name='b')
    trainer.run()
    assert [(e['loss'], e['double']) for e in a.log] == [(1.5, 3.0),
                                                         (3.5, 7.0)]
    assert all('acc' not in e for e in a.log)
    assert sorted(os.listdir(tmp_path)) == ['log_2', 'log_4']
    assert json.loads((tmp_path / 'log_2').read_text()) == a.log[:1]
    assert [e['loss'] for e in b.log] == [1.0, 2.0, 3.0, 4.0]
    with pytest.raises(TypeError, match='unexpected'):
        extensions.LogReport(file='x')
    assert extensions.LogReport(log_name='other')._log_name == 'other'


def test_log_report_before_training(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, tmp_path, stop=(1, 'epoch'))
    log_report = extensions.LogReport()
    trainer.extend(log_report, call_before_training=True)
    trainer.run()
    assert [(e['epoch'], e['iteration']) for e in log_report.log] == \
        [(0, 0), (1, 4)]


def test_log_report_serialize_roundtrip(counting_updater, tmp_path):
    from cpuframe.serializers import DictionarySerializer, NpzDeserializer
    trainer = _trainer(counting_updater, tmp_path, stop=(6, 'iteration'))
    log_report = extensions.LogReport()
    trainer.extend(log_report)
    trainer.run()
    s = DictionarySerializer()
    log_report.serialize(s)
    assert {'_log', '_trigger/previous_iteration', '_summary/_names',
            '_summary/_summaries/0/_x'} <= set(s.target)
    other = extensions.LogReport()
    NpzDeserializer(s.target).load(other)
    assert other.log == log_report.log
    # the two iterations after the last epoch end are still pending
    assert other._summary.compute_mean()['loss'] == pytest.approx(5.5)


# columns max(10, len(name)) wide, each followed by two spaces; a missing
# value leaves its column blank
PRINTED = (
    'epoch     ' '  ' 'iteration ' '  ' 'loss      ' '  '
    'validation/main/loss\n'
    '1         ' '  ' '4         ' '  ' '2.5       ' '  ' + ' ' * 22 + '\n'
    '2         ' '  ' '8         ' '  ' '6.5       ' '  ' + ' ' * 22 + '\n'
)


def test_print_report_table(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, tmp_path, stop=(2, 'epoch'))
    out = io.StringIO()
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(
        ['epoch', 'iteration', 'loss', 'validation/main/loss'], out=out))
    trainer.run()
    assert out.getvalue() == PRINTED


def test_print_report_number_formats():
    out = io.StringIO()
    report = extensions.PrintReport(['a', 'long_entry_name_x'], out=out)
    report._print({'a': 0.000123456789, 'long_entry_name_x': 1234567.0})
    report._print({'a': 3, 'long_entry_name_x': float('nan')})
    assert out.getvalue() == (
        '0.000123457  1.23457e+06        \n'
        '3           nan                \n')


def test_print_report_with_its_own_log_report_on_a_tty(counting_updater,
                                                       tmp_path):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    trainer = _trainer(counting_updater, tmp_path, stop=(2, 'epoch'))
    out = Tty()
    own = extensions.LogReport(log_name=None)
    report = extensions.PrintReport(
        ['epoch', 'iteration', 'loss', 'validation/main/loss'],
        log_report=own, out=out)
    trainer.extend(report)
    trainer.run()
    assert out.getvalue().replace('\033[J', '') == PRINTED
    assert out.getvalue().count('\033[J') == 2
    assert [e['loss'] for e in own.log] == [2.5, 6.5]
    with pytest.raises(TypeError, match='LogReport'):
        extensions.PrintReport(['a'], log_report=3)(trainer)
    with pytest.raises(TypeError, match='list of entry names'):
        extensions.PrintReport('epoch')


def test_print_report_automatic_entries(counting_updater, tmp_path):
    trainer = _trainer(counting_updater, tmp_path, stop=(1, 'epoch'))
    out = io.StringIO()
    trainer.extend(extensions.LogReport())
    trainer.extend(extensions.PrintReport(out=out))
    trainer.run()
    header = out.getvalue().splitlines()[0].split()
    assert header == ['epoch', 'iteration', 'acc', 'loss', 'elapsed_time']


def _fake_bar_clock(monkeypatch):
    from cpuframe.training.extensions import util
    now = [1000.0]

    class FakeTime:
        @staticmethod
        def time():
            now[0] += 0.5
            return now[0]

    monkeypatch.setattr(util, 'time', FakeTime)


def test_progress_bar_plain_lines_when_not_a_tty(counting_updater, tmp_path,
                                                 monkeypatch):
    _fake_bar_clock(monkeypatch)
    trainer = _trainer(counting_updater, tmp_path, stop=(8, 'iteration'))
    out = io.StringIO()
    trainer.extend(extensions.ProgressBar(update_interval=2, bar_length=8,
                                          out=out))
    trainer.run()
    assert out.getvalue().splitlines() == [
        '[##......] 25.00% 2 iter, 0 epoch / 8 iterations, inf '
        'iters/sec. Estimated time to finish: 0:00:00.',
        '[####....] 50.00% 4 iter, 1 epoch / 8 iterations, 4 '
        'iters/sec. Estimated time to finish: 0:00:01.',
        '[######..] 75.00% 6 iter, 1 epoch / 8 iterations, 4 '
        'iters/sec. Estimated time to finish: 0:00:00.500000.',
        '[########] 100.00% 8 iter, 2 epoch / 8 iterations, 4 '
        'iters/sec. Estimated time to finish: 0:00:00.',
    ]


def test_progress_bar_redraws_in_place_on_a_tty(counting_updater, tmp_path,
                                                monkeypatch):
    _fake_bar_clock(monkeypatch)

    class Tty(io.StringIO):
        def isatty(self):
            return True

    trainer = _trainer(counting_updater, tmp_path, stop=(2, 'epoch'))
    out = Tty()
    trainer.extend(extensions.ProgressBar(update_interval=3, bar_length=10,
                                          out=out))
    trainer.run()
    frames = out.getvalue().split('\033[J')
    assert frames[0] == '' and frames[-1] == ''   # closed by finalize
    assert len(frames) == 2 + 2   # updates at iterations 3 and 6
    first = frames[1]
    assert first.endswith('\033[4A')
    lines = first[:-len('\033[4A')].split('\n')
    assert lines[0] == '     total [###.......] 37.50%'
    assert lines[1] == 'this epoch [#######...] 75.00%'
    assert lines[2] == '         3 iter, 0 epoch / 2 epochs'
    assert re.match(r' +inf iters/sec\. Estimated time to finish: '
                    r'0:00:00\.$', lines[3])
    second = frames[2][:-len('\033[4A')].split('\n')
    assert second[1] == 'this epoch [#####.....] 50.00%'
    # 3 iterations in 0.5 s; 0.5 epoch left at 1 epoch/s (4 iters/epoch)
    assert second[3] == '         6 iters/sec. Estimated time to finish: ' \
        '0:00:00.333333.'


def test_progress_bar_needs_a_training_length(counting_updater, tmp_path):
    trainer = training.Trainer(counting_updater(), lambda t: False,
                               out=str(tmp_path))
    with pytest.raises(TypeError, match='training_length'):
        extensions.ProgressBar()(trainer)
    bar = extensions.ProgressBar(training_length=(10, 'iteration'),
                                 out=io.StringIO())
    bar(trainer)
    with pytest.raises(ValueError, match='update_interval'):
        extensions.ProgressBar(update_interval=0)


def test_dict_summary_uses_chainers_snapshot_layout():
    from cpuframe import reporter
    from cpuframe.serializers import DictionarySerializer, NpzDeserializer
    summary = reporter.DictSummary()
    summary.add({'main/loss': 1.0, 'acc': 0.5})
    summary.add({'main/loss': 3.0, 'acc': 1.0})
    s = DictionarySerializer()
    summary.serialize(s)
    assert json.loads(str(s.target['_names'][()])) == ['main/loss', 'acc']
    assert float(s.target['_summaries/0/_x']) == 4.0
    assert float(s.target['_summaries/0/_x2']) == 10.0
    assert int(s.target['_summaries/1/_n']) == 2
    loaded = reporter.DictSummary()
    loaded.add({'stale': 9.0})
    NpzDeserializer(s.target).load(loaded)
    assert loaded.compute_mean() == {'main/loss': 2.0, 'acc': 0.75}
