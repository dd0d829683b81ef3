"""Array functions: shapes, indexing, joining and splitting."""
from cpuframe.functions.array.broadcast import broadcast, broadcast_to  # noqa: F401
from cpuframe.functions.array.cast import cast  # noqa: F401
from cpuframe.functions.array.concat import concat  # noqa: F401
from cpuframe.functions.array.copy import copy  # noqa: F401
from cpuframe.functions.array.depth2space import depth2space, space2depth  # noqa: F401,E501
from cpuframe.functions.array.diagonal import diagonal  # noqa: F401
from cpuframe.functions.array.dstack import dstack  # noqa: F401
from cpuframe.functions.array.expand_dims import expand_dims  # noqa: F401
from cpuframe.functions.array.flatten import flatten  # noqa: F401
from cpuframe.functions.array.flip import flip, fliplr, flipud  # noqa: F401
from cpuframe.functions.array.get_item import get_item  # noqa: F401
from cpuframe.functions.array.hstack import hstack  # noqa: F401
from cpuframe.functions.array.identity import identity  # noqa: F401
from cpuframe.functions.array.im2col import im2col  # noqa: F401
from cpuframe.functions.array.moveaxis import moveaxis, rollaxis  # noqa: F401
from cpuframe.functions.array.pad import pad  # noqa: F401
from cpuframe.functions.array.pad_sequence import pad_sequence  # noqa: F401
from cpuframe.functions.array.permutate import permutate  # noqa: F401
from cpuframe.functions.array.repeat import repeat  # noqa: F401
from cpuframe.functions.array.reshape import reshape  # noqa: F401
from cpuframe.functions.array.resize_images import resize_images  # noqa: F401,E501
from cpuframe.functions.array.scatter_add import scatter_add  # noqa: F401
from cpuframe.functions.array.select_item import select_item  # noqa: F401
from cpuframe.functions.array.separate import separate  # noqa: F401
from cpuframe.functions.array.spatial_transformer_grid import (  # noqa: F401
    spatial_transformer_grid,
)
from cpuframe.functions.array.spatial_transformer_sampler import (  # noqa: F401
    spatial_transformer_sampler,
)
from cpuframe.functions.array.split_axis import split_axis  # noqa: F401
from cpuframe.functions.array.squeeze import squeeze  # noqa: F401
from cpuframe.functions.array.stack import stack  # noqa: F401
from cpuframe.functions.array.sum_to import sum_to  # noqa: F401
from cpuframe.functions.array.swapaxes import swapaxes  # noqa: F401
from cpuframe.functions.array.tile import tile  # noqa: F401
from cpuframe.functions.array.transpose import transpose  # noqa: F401
from cpuframe.functions.array.vstack import vstack  # noqa: F401
from cpuframe.functions.array.where import where  # noqa: F401

__all__ = ['broadcast', 'broadcast_to', 'cast', 'concat', 'copy', 'dstack',
           'expand_dims', 'flatten', 'get_item', 'hstack', 'identity', 'pad',
           'repeat', 'reshape', 'scatter_add', 'select_item', 'separate',
           'split_axis', 'squeeze', 'stack', 'sum_to', 'swapaxes', 'tile',
           'transpose', 'vstack', 'where',
           'pad_sequence',
           'flip', 'fliplr', 'flipud',
           'diagonal',
           'moveaxis', 'rollaxis',
           'depth2space', 'space2depth',
           'resize_images',
           'im2col',
           'spatial_transformer_grid', 'spatial_transformer_sampler',
           'permutate']
