"""Pre-trained image models (Chainer's ``chainer.links.model.vision``):
``vgg``, ``resnet`` and ``googlenet``."""
