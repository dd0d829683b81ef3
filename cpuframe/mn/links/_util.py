"""Helpers of cpuframe.mn.links."""
import copy


def deepcopy_sharing(obj, memo, *shared):
    """A deep copy of ``obj`` (a Link) that shares the attributes named in
    ``shared`` (communicators: an MPI communicator cannot be copied)."""
    for name in shared:
        value = obj.__dict__.get(name)
        if value is not None:
            memo[id(value)] = value
    cls = type(obj)
    new = cls.__new__(cls)
    memo[id(obj)] = new
    for key, value in obj.__dict__.items():
        new.__dict__[key] = copy.deepcopy(value, memo)
    return new
