"""MultiprocessParallelUpdater: data parallelism over CPU worker processes.

Chainer's updater runs one process per GPU and sums the gradients with
NCCL.  This one runs one process per *CPU* device: the main process and
``len(devices) - 1`` workers started with the ``spawn`` method, each with
its own copy of the model and its own iterator.  Gradients and parameters
travel through shared memory (``multiprocessing.RawArray``); pipes carry
only the commands.  Each iteration:

1. every worker loads the current parameters from the shared buffer,
   draws a batch from its iterator, computes the loss and its gradients
   and writes them, flattened, to its slot of the shared gradient buffer;
2. the main process does the same with the first iterator, meanwhile;
3. the main process adds all gradients into its model (a *sum*, as NCCL's
   reduce in Chainer), runs the optimizer and writes the new parameters to
   the shared buffer.

As in Chainer the constructor compensates for the sum: it divides the
learning rate ``lr`` by the number of devices (for Adam, AdaGrad and RMSprop
it multiplies ``eps`` by it instead, for RMSpropGraves and AdaDelta by its
square) and warns.  What the workers' models report is dropped (only the
main process reports), and persistent values such as batch normalization
statistics are not synchronized, both as in Chainer.

``gather_grads``, ``gather_params``, ``scatter_grads``, ``scatter_params``
and ``size_num_grads`` are Chainer's helpers; here they work on NumPy and
Intel64 links (Chainer's need a GPU) and return NumPy arrays.
"""
import multiprocessing
import traceback
import warnings

import numpy

from cpuframe import backend, reporter, variable
from cpuframe.backends import cuda
from cpuframe.dataset import convert
from cpuframe.training.updaters.standard_updater import StandardUpdater


def _sorted_params(link):
    return [param for _, param in sorted(link.namedparams(),
                                         key=lambda item: item[0])
            if param.size != 0]


def size_num_grads(link):
    """``(total size, number)`` of the non-empty parameters of ``link``."""
    params = [p for p in link.params() if p.size != 0]
    return sum(p.size for p in params), len(params)


def _buffer_dtype(params):
    if any(p.dtype == numpy.float64 for p in params):
        return numpy.dtype(numpy.float64)
    return numpy.dtype(numpy.float32)


def _gather(link, attr, out=None):
    params = _sorted_params(link)
    if out is None:
        out = numpy.empty(sum(p.size for p in params), _buffer_dtype(params))
    offset = 0
    for p in params:
        value = getattr(p, attr)
        piece = out[offset:offset + p.size]
        if value is None:
            piece[...] = 0
        else:
            piece[...] = backend.get_device('@numpy').send(value).ravel()
        offset += p.size
    return out


def _scatter(link, array, attr):
    array = numpy.asarray(array)
    params = _sorted_params(link)
    size = sum(p.size for p in params)
    if array.shape != (size,):
        raise ValueError(
            'scatter_{}: expected a flat array of {} values (the size of the '
            "link's parameters), got shape {}".format(
                'grads' if attr == 'grad' else 'params', size, array.shape))
    offset = 0
    for p in params:
        piece = array[offset:offset + p.size].reshape(p.shape).astype(
            p.dtype)
        offset += p.size
        current = getattr(p, attr)
        if current is None:
            setattr(p, attr, p.device.send(piece))
        else:
            backend.copyto(current, piece)


def gather_grads(link):
    """The gradients of ``link``'s parameters, sorted by name, in one flat
    NumPy array (float64 if any parameter is float64, else float32; a
    missing gradient gives zeros)."""
    return _gather(link, 'grad')


def gather_params(link):
    """The parameters of ``link``, sorted by name, in one flat NumPy array
    (float64 if any parameter is float64, else float32)."""
    return _gather(link, 'array')


def scatter_grads(link, array):
    """Put a flat array from :func:`gather_grads` back into the gradients."""
    _scatter(link, array, 'grad')


def scatter_params(link, array):
    """Put a flat array from :func:`gather_params` back into the
    parameters."""
    _scatter(link, array, 'array')


def _picklable_copy(link):
    """A copy of ``link`` on NumPy for a worker.  Variables a link keeps
    besides its parameters (a Classifier's last ``loss``, a recurrent
    state) cannot be pickled (nor can Chainer's): the copy has None there,
    as a fresh link would."""
    copied = link.copy(mode='copy')
    for sub in copied.links():
        for name, value in list(vars(sub).items()):
            if isinstance(value, variable.Variable) and \
                    not isinstance(value, variable.Parameter):
                object.__setattr__(sub, name, None)
    copied.cleargrads()
    copied.to_device('@numpy')
    return copied


def _calc_loss(model, in_arrays):
    if isinstance(in_arrays, tuple):
        return model(*in_arrays)
    if isinstance(in_arrays, dict):
        return model(**in_arrays)
    return model(in_arrays)


def _worker_main(conn, model, iterator, converter, device, params_raw,
                 grads_raw, slot, size, dtype):
    """The loop of a worker process (the target of the spawned Process)."""
    try:
        device = backend.get_device(device)
        model.to_device(device)
        params = numpy.frombuffer(params_raw, dtype, size)
        grads = numpy.frombuffer(grads_raw, dtype)[
            slot * size:(slot + 1) * size]
        observer = reporter.Reporter()
        observer.add_observer('main', model)
        observer.add_observers('main', model.namedlinks(skipself=True))
    except Exception:
        conn.send(('error', traceback.format_exc()))
        return
    while True:
        try:
            job = conn.recv()
        except EOFError:   # the main process is gone
            return
        if job == 'finalize':
            return
        try:
            scatter_params(model, params)
            model.cleargrads()
            in_arrays = convert._call_converter(converter, iterator.next(),
                                                device)
            with observer.scope({}):
                loss = _calc_loss(model, in_arrays)
            model.cleargrads()
            loss.backward()
            del loss
            _gather(model, 'grad', out=grads)
            conn.send(('done', None))
        except Exception:
            conn.send(('error', traceback.format_exc()))


def _scale_for_sum(optimizer, n):
    """The gradients are summed over ``n`` devices: compensate as Chainer
    does, and say so."""
    name = type(optimizer).__name__
    if name in ('Adam', 'AdaGrad', 'RMSprop'):
        optimizer.eps *= n
        attr = 'eps'
    elif name in ('RMSpropGraves', 'AdaDelta'):
        optimizer.eps *= n ** 2
        attr = 'eps'
    elif hasattr(optimizer, 'lr'):
        optimizer.lr /= n
        attr = 'lr'
    else:
        return
    warnings.warn('optimizer.{} is changed to {} by '
                  'MultiprocessParallelUpdater for the new batch size.'.format(
                      attr, getattr(optimizer, attr)), stacklevel=3)


class MultiprocessParallelUpdater(StandardUpdater):
    """Synchronous data parallelism over CPU worker processes.

    See the module's description for how an iteration runs.  The main
    process uses ``iterators[0]`` and ``devices[0]`` (or
    ``devices['main']``); worker ``k`` gets a copy of the model, of
    ``iterators[k]`` and of the converter (all three must be picklable), and
    runs on ``devices[k]``.  Workers are started on the first ``update``
    (after the main process's first forward pass, so lazily initialized
    parameters exist) and stopped by ``finalize()`` (the trainer calls it),
    or with the main process.  A worker's exception is raised in the main
    process as a ``RuntimeError`` carrying its traceback.

    Since the workers are started with ``spawn``, a script using this
    updater must guard its entry point with ``if __name__ == '__main__':``
    (as Chainer's documentation asks).  The processes share the machine's
    cores: give each a thread count with ``cpuframe.set_num_threads`` (or
    ``OMP_NUM_THREADS``) to avoid oversubscription.

    Args:
        iterators (list): one iterator per device, over datasets of one
            length.
        optimizer: the optimizer, set up with the model.
        converter: turns a batch into input arrays on a device.
        devices (list or dict): CPU device specifiers (``'@numpy'``,
            ``'@intel64'``, ``-1``), one per process; a dict must have the
            key ``'main'``.
        auto_new_epoch (bool): call the optimizer's ``new_epoch`` when the
            main iterator finishes an epoch.
    """

    def __init__(self, iterators, optimizer, converter=convert.concat_examples,
                 devices=None, auto_new_epoch=True):
        if isinstance(devices, dict):
            if 'main' not in devices:
                raise KeyError("MultiprocessParallelUpdater: expected devices "
                               "as a dict with a 'main' key, got "
                               '{!r}'.format(devices))
            rest = [d for name, d in devices.items() if name != 'main']
            devices = [devices['main']] + rest
        elif isinstance(devices, (list, tuple)):
            devices = list(devices)
        else:
            raise ValueError(
                'MultiprocessParallelUpdater: expected devices as a dict, '
                'list or tuple, got {}'.format(type(devices).__name__))
        if not devices or any(d is None for d in devices):
            raise ValueError('MultiprocessParallelUpdater: every device must '
                             'be given, got {!r}'.format(devices))
        devices = [backend.get_device(d) for d in devices]
        for d in devices:
            if isinstance(d, cuda.GpuDevice):
                raise ValueError(
                    'MultiprocessParallelUpdater: cpuframe runs worker '
                    'processes on CPU devices; got {} (for several GPUs use '
                    'ParallelUpdater, or cpuframe.mn with one process per '
                    'GPU)'.format(d))
        iterators = list(iterators)
        if len(iterators) != len(devices):
            raise ValueError(
                'MultiprocessParallelUpdater: expected one iterator per '
                'device, got {} iterators and {} devices'.format(
                    len(iterators), len(devices)))
        lengths = {len(it.dataset) for it in iterators
                   if hasattr(it, 'dataset')}
        if len(lengths) > 1:
            raise ValueError(
                'MultiprocessParallelUpdater: expected datasets of one length '
                'for all iterators, got lengths {}'.format(sorted(lengths)))

        super().__init__(iterator=iterators[0], optimizer=optimizer,
                         converter=converter, auto_new_epoch=auto_new_epoch)
        _scale_for_sum(optimizer, len(devices))
        self._master = optimizer.target
        self._devices = devices
        self._mpu_iterators = iterators
        self._initialized = False
        self._pipes = []
        self._workers = []
        self._params = self._grads = None
        self._failure = None
        self._master.to_device(devices[0])

    @staticmethod
    def available():
        """Whether this updater can run: always True here (it needs only
        the standard library's ``multiprocessing``; Chainer's needs NCCL)."""
        return True

    def _setup_workers(self):
        self._initialized = True
        n_workers = len(self._devices) - 1
        if n_workers == 0:
            return
        params = _sorted_params(self._master)
        if any(p.array is None for p in params):
            raise RuntimeError(
                'MultiprocessParallelUpdater: the model has uninitialized '
                'parameters after a forward pass')
        size = sum(p.size for p in params)
        dtype = _buffer_dtype(params)
        ctx = multiprocessing.get_context('spawn')
        code = 'd' if dtype == numpy.float64 else 'f'
        self._params_raw = ctx.RawArray(code, max(size, 1))
        self._grads_raw = ctx.RawArray(code, max(size * n_workers, 1))
        self._params = numpy.frombuffer(self._params_raw, dtype, size)
        self._grads = numpy.frombuffer(self._grads_raw, dtype).reshape(
            -1)[:size * n_workers].reshape(n_workers, size)
        _gather(self._master, 'array', out=self._params)
        model = _picklable_copy(self._master)
        for k in range(n_workers):
            pipe, worker_end = ctx.Pipe()
            worker = ctx.Process(
                target=_worker_main,
                args=(worker_end, model, self._mpu_iterators[k + 1],
                      self.converter, str(self._devices[k + 1]),
                      self._params_raw, self._grads_raw, k, size, dtype),
                daemon=True)
            worker.start()
            worker_end.close()
            self._workers.append(worker)
            self._pipes.append(pipe)

    def _receive(self, k):
        # A worker killed without closing its end (SIGKILL, OOM) would leave
        # a bare recv() waiting forever: poll, and check that it still runs.
        pipe, worker = self._pipes[k], self._workers[k]
        while not pipe.poll(1.0):
            if not worker.is_alive():
                raise EOFError
        return pipe.recv()

    def _collect(self):
        errors = []
        for k in range(len(self._pipes)):
            try:
                status, info = self._receive(k)
            except EOFError:
                status, info = 'error', 'the process ended unexpectedly'
            if status != 'done':
                errors.append('worker {} (device {}):\n{}'.format(
                    k + 1, self._devices[k + 1], info))
        if errors:
            self._stop_workers()
            self._failure = ('MultiprocessParallelUpdater: a worker '
                             'failed\n' + '\n'.join(errors))
            raise RuntimeError(self._failure)

    def update_core(self):
        """One synchronous step over all processes."""
        if self._failure is not None:
            raise RuntimeError(self._failure + '\n(the workers are stopped; '
                               'make a new updater)')
        started = self._initialized
        if started:
            for pipe in self._pipes:
                pipe.send('update')
        optimizer = self.get_optimizer('main')
        iterator = self.get_iterator('main')
        device = self._devices[0]
        try:
            with backend.using_device(device):
                self._master.cleargrads()
                in_arrays = convert._call_converter(
                    self.converter, iterator.next(), device)
                loss = _calc_loss(self._master, in_arrays)
                self._master.cleargrads()
                loss.backward()
                del loss
        except Exception:
            if started:   # keep the pipes in step: take the workers' answers
                for k in range(len(self._pipes)):
                    try:
                        self._receive(k)
                    except EOFError:
                        pass
            raise
        if not started:
            self._setup_workers()
            for pipe in self._pipes:
                pipe.send('update')
        if self._workers:
            self._collect()
            total = gather_grads(self._master)
            total += self._grads.sum(axis=0)
            scatter_grads(self._master, total)
        optimizer.update()
        if self._workers:
            _gather(self._master, 'array', out=self._params)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)

    def _stop_workers(self):
        for pipe in self._pipes:
            try:
                pipe.send('finalize')
            except (BrokenPipeError, OSError):
                pass
        for worker in self._workers:
            worker.join(10)
            if worker.is_alive():
                worker.terminate()
                worker.join()
        for pipe in self._pipes:
            pipe.close()
        self._pipes = []
        self._workers = []

    def finalize(self):
        """Stop the worker processes and finalize the iterators."""
        self._stop_workers()
        super().finalize()
