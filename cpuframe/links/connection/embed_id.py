"""Word embedding layer."""
from cpuframe import initializers, link, variable
from cpuframe.functions.connection.embed_id import embed_id


class EmbedID(link.Link):
    """Maps integer ids in [0, in_size) to rows of W (in_size, out_size).

    ``initialW`` defaults to Normal(1.0); ids equal to ``ignore_label`` map
    to zero vectors.
    """

    ignore_label = None

    def __init__(self, in_size, out_size, initialW=None, ignore_label=None):
        super().__init__()
        self.ignore_label = ignore_label
        with self.init_scope():
            W_init = initializers._get_initializer(initialW) or \
                initializers.Normal(1.0)
            self.W = variable.Parameter(W_init, (in_size, out_size))

    def printable_specs(self):
        return (('in_size', self.W.shape[0]), ('out_size', self.W.shape[1]),
                ('ignore_label', self.ignore_label))

    def forward(self, x):
        return embed_id(x, self.W, ignore_label=self.ignore_label)
