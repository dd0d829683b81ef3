"""Probability distributions (Chainer's ``chainer.distributions``)."""
from cpuframe.distributions.bernoulli import Bernoulli  # noqa: F401
from cpuframe.distributions.beta import Beta  # noqa: F401
from cpuframe.distributions.categorical import Categorical  # noqa: F401
from cpuframe.distributions.cauchy import Cauchy  # noqa: F401
from cpuframe.distributions.chisquare import Chisquare  # noqa: F401
from cpuframe.distributions.dirichlet import Dirichlet  # noqa: F401
from cpuframe.distributions.exponential import Exponential  # noqa: F401
from cpuframe.distributions.gamma import Gamma  # noqa: F401
from cpuframe.distributions.geometric import Geometric  # noqa: F401
from cpuframe.distributions.gumbel import Gumbel  # noqa: F401
from cpuframe.distributions.independent import Independent  # noqa: F401
from cpuframe.distributions.laplace import Laplace  # noqa: F401
from cpuframe.distributions.log_normal import LogNormal  # noqa: F401
from cpuframe.distributions.multivariate_normal import (  # noqa: F401
    MultivariateNormal,
)
from cpuframe.distributions.normal import Normal  # noqa: F401
from cpuframe.distributions.one_hot_categorical import (  # noqa: F401
    OneHotCategorical,
)
from cpuframe.distributions.pareto import Pareto  # noqa: F401
from cpuframe.distributions.poisson import Poisson  # noqa: F401
from cpuframe.distributions.uniform import Uniform  # noqa: F401
