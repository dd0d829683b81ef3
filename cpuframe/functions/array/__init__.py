"""Array functions: shapes, indexing, joining and splitting."""
from cpuframe.functions.array.broadcast import broadcast, broadcast_to  # noqa: F401
from cpuframe.functions.array.get_item import get_item  # noqa: F401
from cpuframe.functions.array.reshape import reshape  # noqa: F401
from cpuframe.functions.array.sum_to import sum_to  # noqa: F401
from cpuframe.functions.array.transpose import transpose  # noqa: F401

__all__ = ['broadcast', 'broadcast_to', 'get_item', 'reshape', 'sum_to',
           'transpose']
