"""ChainerMN's ``chainermn.testing``: the device a test runs on."""
from cpuframe.mn.testing.device import get_device

__all__ = ['get_device']
