"""``AllreducePersistent``: average the models' persistent values."""
import numpy

from cpuframe.training import extension


def _float_persistents(model):
    """``(path, link, name, value)`` of every floating-point array
    persistent in ``model``, sorted by path."""
    from cpuframe import backend
    found = []
    for link_path, link in model.namedlinks():
        for name in link._persistent:
            value = link.__dict__.get(name)
            if not backend.is_array(value):
                continue       # scalars such as BatchNormalization's N
            if not numpy.issubdtype(numpy.dtype(value.dtype), numpy.floating):
                continue
            path = link_path.rstrip('/') + '/' + name
            found.append((path, link, name, value))
    found.sort(key=lambda e: e[0])
    return found


class AllreducePersistent(extension.Extension):
    """Replace every floating-point persistent array of ``model`` (e.g.
    BatchNormalization's ``avg_mean`` and ``avg_var``) by its mean over the
    ranks; integer and scalar persistents are left alone.

    Each rank's running statistics otherwise see only its own examples;
    run it before evaluating or saving the model (by default once per
    epoch, before the evaluators).  Call it on every rank.

    Args:
        model (Link): the model.
        comm: a cpuframe.mn communicator.
    """

    trigger = 1, 'epoch'
    # Before the evaluators (PRIORITY_WRITER).
    priority = extension.PRIORITY_WRITER + 1

    def __init__(self, model, comm):
        self.model = model
        self.comm = comm

    def __call__(self, trainer=None):
        from cpuframe import backend
        entries = _float_persistents(self.model)
        signature = [(path, tuple(value.shape), numpy.dtype(value.dtype).str)
                     for path, _, _, value in entries]
        reference = self.comm.bcast_obj(signature, root=0)
        differs = self.comm.allreduce_obj(int(reference != signature))
        if differs:
            raise ValueError(
                'AllreducePersistent: the models\' persistent values differ '
                'between ranks ({} rank(s) differ from rank 0)'.format(
                    differs))
        size = self.comm.size
        for _, link, name, value in entries:
            host = numpy.asarray(backend.cpu_device.send(value))
            total = self.comm.allreduce(host)
            mean = (total / size).astype(host.dtype, copy=False)
            if isinstance(value, numpy.ndarray) and value.flags.writeable:
                value[...] = mean
            else:
                object.__setattr__(link, name, link._device.send(mean))
