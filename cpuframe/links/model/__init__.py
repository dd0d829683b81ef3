"""Model links."""
from cpuframe.links.model.classifier import Classifier
from cpuframe.links.model.vision.googlenet import GoogLeNet
from cpuframe.links.model.vision.resnet import (
    ResNet50Layers,
    ResNet101Layers,
    ResNet152Layers,
)
from cpuframe.links.model.vision.vgg import VGG16Layers, VGG19Layers

__all__ = ['Classifier', 'GoogLeNet', 'ResNet50Layers', 'ResNet101Layers',
           'ResNet152Layers', 'VGG16Layers', 'VGG19Layers']
