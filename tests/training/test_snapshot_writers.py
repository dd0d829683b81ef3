"""Chainer 7's snapshot writers: Standard/Thread/Process and the queue
writers."""
import os
import threading

import numpy
import pytest

from cpuframe.serializers import npz
from cpuframe.training.extensions import snapshot_writers as sw


def _target(v):
    return {'w': numpy.full(3, v, numpy.float32)}


def _read(path):
    with numpy.load(path) as f:
        return f['w']


@pytest.mark.parametrize('cls', ['SimpleWriter', 'ThreadWriter',
                                 'ProcessWriter', 'ThreadQueueWriter',
                                 'ProcessQueueWriter'])
def test_writers_write_every_snapshot(cls, tmp_path):
    writer = getattr(sw, cls)()
    assert isinstance(writer, sw.Writer)
    for i in range(3):
        writer('snap_{}'.format(i), str(tmp_path), _target(i))
    writer.finalize()
    for i in range(3):
        numpy.testing.assert_array_equal(
            _read(os.path.join(str(tmp_path), 'snap_{}'.format(i))), [i] * 3)
    writer.finalize()  # idempotent


def test_class_hierarchy():
    assert issubclass(sw.ThreadWriter, sw.StandardWriter)
    assert issubclass(sw.ProcessWriter, sw.StandardWriter)
    assert issubclass(sw.ThreadQueueWriter, sw.QueueWriter)
    assert issubclass(sw.ProcessQueueWriter, sw.QueueWriter)
    with pytest.raises(NotImplementedError):
        sw.StandardWriter()('f', '.', {})


def test_savefun_keywords_are_passed(tmp_path):
    seen = []

    def savefun(path, obj, **kwds):
        seen.append(kwds)
        npz.save_npz(path, obj)

    w = sw.ThreadWriter(savefun=savefun, compression=False)
    w('a', str(tmp_path), _target(1))
    w.finalize()
    s = sw.SimpleWriter(savefun=savefun, compression=True)
    s('b', str(tmp_path), _target(2))
    assert seen == [{'compression': False}, {'compression': True}]


def test_thread_writer_waits_for_previous_worker(tmp_path):
    release = threading.Event()
    order = []

    def savefun(path, obj):
        if not order:
            release.wait(5)
        order.append(os.path.basename(path))
        npz.save_npz(path, obj)

    w = sw.ThreadWriter(savefun=savefun)
    w('first', str(tmp_path), _target(1))
    threading.Timer(0.1, release.set).start()
    w('second', str(tmp_path), _target(2))  # joins the first write
    w.finalize()
    assert len(order) == 2
    assert os.path.exists(os.path.join(str(tmp_path), 'first'))
    assert os.path.exists(os.path.join(str(tmp_path), 'second'))


def test_queue_writer_custom_task(tmp_path):
    calls = []

    def task(filename, outdir, target):
        calls.append((filename, outdir, sorted(target)))

    w = sw.ThreadQueueWriter(task=task)
    w('x', 'dir', _target(0))
    w.finalize()
    assert calls == [('x', 'dir', ['w'])]


def test_graphviz_probe_helpers():
    import sys

    from cpuframe.training.extensions import computational_graph as cg
    assert cg.is_return_code_zero([sys.executable, '-c', 'pass'])
    assert not cg.is_return_code_zero(
        [sys.executable, '-c', 'import sys; sys.exit(3)'])
    assert not cg.is_return_code_zero(['/nonexistent/command-xyz'])
    assert isinstance(cg.is_graphviz_available(), bool)
