"""Highway network layer."""
from cpuframe import link
from cpuframe.functions.activation.relu import relu
from cpuframe.functions.activation.sigmoid import sigmoid
from cpuframe.links.connection.linear import Linear


class Highway(link.Chain):
    """Highway layer (Srivastava et al., 2015).

    ``y = activate(plain(x)) * t + x * (1 - t)`` with the transform gate
    ``t = sigmoid(transform(x))``; ``plain`` and ``transform`` are
    ``Linear(in_out_size, in_out_size)`` children.  The transform bias
    defaults to -1 so the layer starts close to the identity (carry).

    Args:
        in_out_size (int): the input and output dimension.
        nobias (bool): drop the biases of both Linear children.
        activate (callable): the activation of the plain path (relu).
        init_Wh, init_bh: initializers of ``plain``'s W and b.
        init_Wt, init_bt: initializers of ``transform``'s W and b.
    """

    def __init__(self, in_out_size, nobias=False, activate=relu,
                 init_Wh=None, init_Wt=None, init_bh=None, init_bt=-1):
        super().__init__()
        self.in_out_size = in_out_size
        self.activate = activate
        with self.init_scope():
            self.plain = Linear(in_out_size, in_out_size, nobias=nobias,
                                initialW=init_Wh, initial_bias=init_bh)
            self.transform = Linear(in_out_size, in_out_size, nobias=nobias,
                                    initialW=init_Wt, initial_bias=init_bt)

    def forward(self, x):
        shape = tuple(x.shape)
        if len(shape) != 2 or shape[1] != self.in_out_size:
            raise ValueError(
                'Highway: expected an input of shape (N, {}), got {}'.format(
                    self.in_out_size, shape))
        out_plain = self.activate(self.plain(x))
        out_transform = sigmoid(self.transform(x))
        return out_plain * out_transform + x * (1 - out_transform)
