"""What the pre-trained image models (VGG, ResNet, GoogLeNet) share: image
preparation, the layer-by-layer forward, ``extract``, ``predict`` and the
loading of converted weights.

cpuframe reads no Caffe files: the weights come from an ``.npz`` file in
Chainer's layout (what Chainer's ``convert_caffemodel_to_npz`` writes and
what Chainer caches under ``<dataset root>/pfnet/chainer/models``).
"""
import os

import numpy

from cpuframe import configuration, link
from cpuframe.dataset import convert, download
from cpuframe.functions.array.reshape import reshape
from cpuframe.functions.math.average import average
from cpuframe.serializers import npz
from cpuframe.utils import argument, imgproc
from cpuframe.variable import Variable

MODELS_DIRECTORY = 'pfnet/chainer/models'


def pillow_available():
    """Whether Pillow can be imported (the modules' ``available`` flag)."""
    try:
        import PIL.Image  # noqa: F401
    except ImportError:
        return False
    return True


def _pillow(func, why):
    try:
        from PIL import Image
    except ImportError as e:
        raise ImportError(
            '{} needs Pillow {}, and it could not be imported ({}). Install '
            'it with `pip install cpuframe[image]` (or `pip install '
            'Pillow`).'.format(func, why, e)) from e
    return Image


def _check_size(size, func):
    if not size:
        return None
    if (not isinstance(size, (tuple, list)) or len(size) != 2 or
            not all(isinstance(s, (int, numpy.integer)) and s > 0
                    for s in size)):
        raise ValueError(
            '{}: size must be None or a pair of positive ints (width, '
            'height), got {!r}'.format(func, size))
    return int(size[0]), int(size[1])


def _ndarray_to_rgb(image, func):
    """An ``(H, W, 3)`` uint8 RGB array from the array forms ``prepare``
    accepts, converted as Pillow converts them to an RGB image."""
    if image.ndim == 3 and image.shape[0] == 1:
        image = image[0]
    elif image.ndim == 3 and image.shape[0] == 3:
        image = image.transpose(1, 2, 0)
    if not (image.ndim == 2 or (image.ndim == 3 and image.shape[2] in (3, 4))):
        raise ValueError(
            '{}: expected an image array of shape (H, W), (H, W, 3), '
            '(H, W, 4), (1, H, W) or (3, H, W), got shape {}'.format(
                func, image.shape))
    image = image.astype(numpy.uint8)  # as Chainer converts it for Pillow
    if image.ndim == 2:  # greyscale: the value goes to every channel
        return numpy.repeat(image[:, :, None], 3, axis=2)
    return image[:, :, :3]  # RGBA drops its alpha channel


def prepare_image(image, size, mean, func):
    """The ``prepare`` of the models: RGB image -> BGR ``(3, H, W)`` array
    of ``config.dtype`` minus the per-channel ``mean`` (given in BGR).

    An array that needs no resizing is converted with NumPy alone; Pillow
    is needed for PIL images and for resizing (``size`` is ``(width,
    height)``, Pillow's order).
    """
    size = _check_size(size, func)
    if isinstance(image, numpy.ndarray):
        rgb = _ndarray_to_rgb(image, func)
        if size is not None and size != (rgb.shape[1], rgb.shape[0]):
            Image = _pillow(func, 'to resize an image to {}'.format(size))
            rgb = numpy.asarray(Image.fromarray(rgb).resize(size))
    else:
        try:
            from PIL import Image
        except ImportError:
            Image = None  # then ``image`` cannot be a PIL image
        if Image is None or not isinstance(image, Image.Image):
            raise TypeError(
                '{}: expected a PIL image or a numpy.ndarray, got {}'.format(
                    func, type(image).__name__))
        image = image.convert('RGB')
        if size is not None:
            image = image.resize(size)
        rgb = numpy.asarray(image)
    import cpuframe
    dtype = cpuframe.get_dtype()
    bgr = rgb[:, :, ::-1].astype(dtype)
    bgr -= numpy.asarray(mean, dtype=dtype)
    return numpy.ascontiguousarray(bgr.transpose(2, 0, 1))


def weights_file(pretrained_model, auto_name, source, cls_name):
    """The ``.npz`` a model's constructor loads (None: none), checked
    before anything is built.

    ``'auto'`` means ``<dataset root>/pfnet/chainer/models/<auto_name>``,
    the file Chainer converts the downloaded Caffe model (``source``) to;
    when it is missing a FileNotFoundError says where to put it.  cpuframe
    downloads nothing, as it could not convert what it downloaded.
    """
    if not pretrained_model:
        return None
    if isinstance(pretrained_model, str) and pretrained_model == 'auto':
        path = os.path.join(
            download.get_dataset_directory(MODELS_DIRECTORY), auto_name)
        if not os.path.exists(path):
            raise FileNotFoundError(
                "{cls}: pretrained_model='auto' loads the converted model "
                "{path}, which does not exist. cpuframe cannot convert Caffe "
                "models (it has no caffemodel reader), so it downloads "
                "nothing. Convert the Caffe model ({source}) with Chainer's "
                "{cls}.convert_caffemodel_to_npz, or copy the {name} Chainer "
                "already wrote under $CHAINER_DATASET_ROOT/{models}, and "
                "place it at {path}. Or pass the path of an .npz as "
                "pretrained_model, or pretrained_model=None for a randomly "
                "initialized model.".format(
                    cls=cls_name, path=path, source=source, name=auto_name,
                    models=MODELS_DIRECTORY))
        return path
    if isinstance(pretrained_model, (str, os.PathLike)) and \
            not os.path.exists(pretrained_model):
        raise FileNotFoundError(
            '{}: pretrained_model {!r} does not exist (expected an .npz file '
            'of the model\'s parameters, None, or \'auto\')'.format(
                cls_name, os.fspath(pretrained_model)))
    return pretrained_model


def load(model, path):
    """Load the ``.npz`` at ``path`` (from ``weights_file``) if any."""
    if path is not None:
        npz.load_npz(path, model)


def no_caffe(cls):
    raise NotImplementedError(
        '{}.convert_caffemodel_to_npz: cpuframe cannot read Caffe models '
        '(that needs protobuf and Chainer\'s caffe_pb2 reader, which '
        'cpuframe does not include). Convert the caffemodel with Chainer '
        '(chainer.links.{}.convert_caffemodel_to_npz) and pass the .npz '
        'it writes as pretrained_model; the parameter names are the '
        'same.'.format(cls.__name__, cls.__name__))


class PretrainedModel(link.Chain):
    """The ``forward``/``extract``/``predict`` of the pre-trained models.

    A subclass defines the ``functions`` property (an ordered dict of layer
    name -> list of callables applied in turn) and ``_prepare``.  A layer
    named in ``_branch_inputs`` starts from the output of the earlier layer
    given there instead of the previous one (GoogLeNet's side heads).
    """

    _branch_inputs = {}
    _default_extract = 'pool5'
    _removed_argument = 'test'

    @property
    def functions(self):
        raise NotImplementedError

    @property
    def available_layers(self):
        """The layer names ``forward`` and ``extract`` accept, in order."""
        return list(self.functions.keys())

    @staticmethod
    def _prepare(image, size):
        raise NotImplementedError

    def _check_kwargs(self, kwargs, extract):
        name = self._removed_argument
        removed = {name: '{} argument is not supported anymore. Use '
                   'chainer.using_config'.format(name)}
        if extract:
            removed['volatile'] = ('volatile argument is not supported '
                                   'anymore. Use chainer.using_config')
        argument.check_unexpected_kwargs(kwargs, **removed)
        if kwargs:
            raise TypeError('{}.{}() got unexpected keyword argument(s) '
                            '{}'.format(type(self).__name__,
                                        'extract' if extract else 'forward',
                                        ', '.join(sorted(kwargs))))

    def _check_layers(self, layers, functions, method):
        if isinstance(layers, str):
            raise TypeError(
                '{}.{}: layers must be a list of layer names, got the string '
                '{!r} (write [{!r}])'.format(type(self).__name__, method,
                                             layers, layers))
        layers = list(layers)
        unknown = [name for name in layers if name not in functions]
        if unknown:
            raise ValueError(
                '{}.{}: unknown layer(s) {}; the available layers are '
                '{}'.format(type(self).__name__, method, unknown,
                            list(functions)))
        return layers

    def forward(self, x, layers=None, **kwargs):
        """forward(self, x, layers=['prob'])

        The outputs of the layers named in ``layers`` (a dict name ->
        Variable).  ``x`` is a batch of images made by ``prepare``.
        Computation stops after the last requested layer.
        """
        if kwargs:
            self._check_kwargs(kwargs, extract=False)
        functions = self.functions
        targets = set(self._check_layers(
            ['prob'] if layers is None else layers, functions, 'forward'))
        sources = set(self._branch_inputs.values())
        kept = {}
        activations = {}
        h = x
        for name, funcs in functions.items():
            if not targets:
                break
            if name in self._branch_inputs:
                h = kept[self._branch_inputs[name]]
            for func in funcs:
                h = func(h)
            if name in sources:
                kept[name] = h
            if name in targets:
                activations[name] = h
                targets.remove(name)
        return activations

    def extract(self, images, layers=None, size=(224, 224), **kwargs):
        """extract(self, images, layers=[...], size=(224, 224))

        ``forward`` on images (PIL images or arrays) converted by
        ``prepare(image, size)``.  Unlike ``predict`` it keeps the current
        ``train`` and ``enable_backprop`` settings.
        """
        if kwargs:
            self._check_kwargs(kwargs, extract=True)
        if layers is None:
            layers = [self._default_extract]
        self._check_layers(layers, self.functions, 'extract')
        x = convert.concat_examples(
            [self._prepare(image, size=size) for image in images])
        return self(Variable(self.device.send(x)), layers=layers)

    def predict(self, images, oversample=True):
        """Class probabilities of images (a Variable ``(N, 1000)``).

        Each image is prepared at 256x256; ``oversample=True`` averages the
        probabilities of ten 224x224 crops (the corners, the centre and
        their mirrors), ``False`` uses the centre crop.  Runs with
        ``train=False`` and without backprop.
        """
        x = convert.concat_examples(
            [self._prepare(image, size=(256, 256)) for image in images])
        if oversample:
            x = imgproc.oversample(x, crop_dims=(224, 224))
        else:
            x = x[:, :, 16:240, 16:240]
        with configuration.no_backprop_mode(), \
                configuration.using_config('train', False):
            y = self(Variable(self.device.send(x)), layers=['prob'])['prob']
            if oversample:
                n = len(y) // 10
                y = average(reshape(y, (n, 10) + y.shape[1:]), axis=1)
        return y
