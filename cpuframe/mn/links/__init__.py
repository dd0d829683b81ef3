"""Multi-node links (ChainerMN's ``chainermn.links``)."""
from cpuframe.mn.links.batch_normalization import (  # NOQA
    MultiNodeBatchNormalization,
)
from cpuframe.mn.links.create_mnbn_model import create_mnbn_model  # NOQA
from cpuframe.mn.links.multi_node_chain_list import (  # NOQA
    MultiNodeChainList,
)
from cpuframe.mn.links.n_step_rnn import create_multi_node_n_step_rnn  # NOQA
