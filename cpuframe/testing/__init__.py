"""Test helpers: parameterized test classes and array assertions."""
from cpuframe.gradient_check import assert_allclose  # noqa: F401
from cpuframe.testing.parameterized import parameterize, product, product_dict  # noqa: F401
