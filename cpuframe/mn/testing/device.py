"""``chainermn.testing.device.get_device``."""
import cpuframe


def get_device(device_id=None, use_chainerx=False):
    """The device a ChainerMN test runs on: ``'@numpy'`` without
    ``device_id``, the CuPy device ``'@cupy:<device_id>'`` with one (0 is a
    GPU too, as in ChainerMN). ``use_chainerx=True`` asks for ChainerX's
    ``'native:0'`` / ``'cuda:<id>'``, which cpuframe does not have: the
    error says so."""
    if use_chainerx:
        spec = 'native:0' if device_id is None else 'cuda:{}'.format(
            device_id)
    else:
        spec = '@numpy' if device_id is None else '@cupy:{}'.format(
            device_id)
    return cpuframe.get_device(spec)
