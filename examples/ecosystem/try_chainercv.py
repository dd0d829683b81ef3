"""Exercise ChainerCV 0.13.1 as a Chainer user would.

    python -m cpuframe.compat examples/ecosystem/try_chainercv.py [--quick]

Models are built with pretrained_model=None and run on small random images
on '@numpy' and '@intel64'; one training step for SegNetBasic and ResNet50.
--quick: '@numpy' only, no full-size VGG16.  --more: also YOLOv2/v3,
YOLOv2Tiny, SSD512, SE-ResNet(X)50, FasterRCNNFPNResNet50,
MaskRCNNFPNResNet50, DeepLabV3plusXception65, PSPNetResNet50 ('@numpy').
Prints one PASS/FAIL line per check.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402

import chainer  # noqa: E402
import chainer.functions as F  # noqa: E402

from _check import check, summary  # noqa: E402
import ecosystem_shims  # noqa: E402

ecosystem_shims.install()
print('shims applied: %s' % ecosystem_shims.applied)

QUICK = '--quick' in sys.argv
MORE = '--more' in sys.argv  # also YOLO, FPN, Mask R-CNN, DeepLab, PSPNet
DEVICES = ['@numpy'] if QUICK else ['@numpy', '@intel64']
rng = np.random.RandomState(0)


def img(h, w):
    return rng.uniform(0, 255, (3, h, w)).astype(np.float32)


def imports():
    import chainercv  # noqa
    import chainercv.links  # noqa
    import chainercv.transforms  # noqa
    import chainercv.utils  # noqa
    return True


if not check('import chainercv, chainercv.links', imports):
    sys.exit(summary('try_chainercv'))
import chainercv  # noqa: E402
from chainercv import links as CL  # noqa: E402
from chainercv import transforms, utils  # noqa: E402


def to_dev(model, device):
    model.to_device(device)
    assert str(model.device) == device, model.device
    return model


def nms_check():
    bbox = np.array([[0, 0, 10, 10], [1, 1, 10, 10], [20, 20, 30, 30]],
                    dtype=np.float32)
    keep = utils.non_maximum_suppression(bbox, 0.5,
                                         np.array([0.9, 0.8, 0.7]))
    assert list(keep) == [0, 2], keep


def transforms_check():
    x = img(32, 48)
    y = transforms.resize(x, (16, 24))
    assert y.shape == (3, 16, 24), y.shape
    y = transforms.random_flip(x, x_random=True)
    assert y.shape == x.shape


check('utils.non_maximum_suppression', nms_check)
check('transforms.resize/random_flip', transforms_check)


def resnet50(device):
    model = to_dev(CL.ResNet50(n_class=10, pretrained_model=None,
                               arch='fb'), device)
    x = model.xp.asarray(rng.uniform(-1, 1, (2, 3, 64, 64))
                         .astype(np.float32))
    with chainer.using_config('train', False), \
            chainer.no_backprop_mode():
        y = model(x)
    assert y.shape == (2, 10), y.shape
    return model


def resnet50_predict(device):
    model = to_dev(CL.ResNet50(n_class=10, pretrained_model=None,
                               arch='he', mean=np.zeros((3, 1, 1), 'f')),
                   device)
    # chainercv.links.FeaturePredictor: resize + center crop + forward
    pred = CL.FeaturePredictor(model, crop_size=64, scale_size=72)
    out = pred.predict([img(80, 90), img(70, 100)])
    assert out.shape == (2, 10), out.shape


def resnet50_train(device):
    model = to_dev(CL.ResNet50(n_class=10, pretrained_model=None,
                               arch='fb'), device)
    opt = chainer.optimizers.MomentumSGD(lr=0.01)
    opt.setup(model)
    x = model.xp.asarray(rng.uniform(-1, 1, (2, 3, 32, 32))
                         .astype(np.float32))
    t = model.xp.asarray(np.array([1, 2], dtype=np.int32))
    with chainer.no_backprop_mode():
        model(x)  # fc6 is initialized lazily on the first call
    before = np.array(chainer.backend.CpuDevice().send(
        model.fc6.W.array), copy=True)
    loss = F.softmax_cross_entropy(model(x), t)
    model.cleargrads()
    loss.backward()
    opt.update()
    after = chainer.backend.CpuDevice().send(model.fc6.W.array)
    assert not np.allclose(before, after)
    assert np.isfinite(float(loss.array))


def vgg16(device):
    model = to_dev(CL.VGG16(n_class=10, pretrained_model=None), device)
    x = model.xp.asarray(rng.uniform(-1, 1, (1, 3, 224, 224))
                         .astype(np.float32))
    with chainer.using_config('train', False), \
            chainer.no_backprop_mode():
        y = model(x)
    assert y.shape == (1, 10), y.shape


def vgg16_pool5(device):
    model = to_dev(CL.VGG16(pretrained_model=None, n_class=10), device)
    model.pick = 'pool5'
    x = model.xp.asarray(rng.uniform(-1, 1, (1, 3, 64, 64))
                         .astype(np.float32))
    with chainer.using_config('train', False):
        y = model(x)
    assert y.shape == (1, 512, 2, 2), y.shape


def ssd300(device):
    model = to_dev(CL.SSD300(n_fg_class=3, pretrained_model=None), device)
    bboxes, labels, scores = model.predict([img(120, 160)])
    assert len(bboxes) == 1 and bboxes[0].shape[1:] == (4,), bboxes[0].shape
    assert labels[0].shape == scores[0].shape


def ssd300_train(device):
    from chainercv.links.model.ssd import multibox_loss
    model = to_dev(CL.SSD300(n_fg_class=3, pretrained_model=None), device)
    opt = chainer.optimizers.MomentumSGD(lr=1e-4)
    opt.setup(model)
    x = model.xp.asarray(rng.uniform(-1, 1, (1, 3, 300, 300))
                         .astype(np.float32))
    mb_locs, mb_confs = model(x)
    n = mb_locs.shape[1]
    gt_locs = model.xp.asarray(rng.normal(0, 0.1, (1, n, 4))
                               .astype(np.float32))
    gt_labels = np.zeros((1, n), dtype=np.int32)
    gt_labels[0, :5] = 1
    gt_labels = model.xp.asarray(gt_labels)
    loc_loss, conf_loss = multibox_loss(mb_locs, mb_confs, gt_locs,
                                        gt_labels, k=3)
    loss = loc_loss + conf_loss
    model.cleargrads()
    loss.backward()
    opt.update()
    assert np.isfinite(float(loss.array))


def faster_rcnn(device):
    model = to_dev(CL.FasterRCNNVGG16(n_fg_class=3, pretrained_model=None,
                                      min_size=96, max_size=128), device)
    bboxes, labels, scores = model.predict([img(100, 120)])
    assert len(bboxes) == 1 and bboxes[0].shape[1:] == (4,), bboxes[0].shape


def faster_rcnn_train(device):
    from chainercv.links.model.faster_rcnn import FasterRCNNTrainChain
    # small anchors so that some lie inside the small image
    model = CL.FasterRCNNVGG16(n_fg_class=3, pretrained_model=None,
                               min_size=96, max_size=128,
                               anchor_scales=[1, 2])
    chain = to_dev(FasterRCNNTrainChain(model), device)
    opt = chainer.optimizers.MomentumSGD(lr=1e-4)
    opt.setup(chain)
    x = chain.xp.asarray(rng.uniform(0, 255, (1, 3, 96, 112))
                         .astype(np.float32))
    bbox = chain.xp.asarray(np.array([[[10, 10, 60, 70]]], dtype=np.float32))
    label = chain.xp.asarray(np.array([[1]], dtype=np.int32))
    scale = np.float32(1.0)
    loss = chain(x, bbox, label, scale)
    chain.cleargrads()
    loss.backward()
    opt.update()
    assert np.isfinite(float(loss.array))


def segnet(device):
    model = to_dev(CL.SegNetBasic(n_class=4, pretrained_model=None), device)
    labels = model.predict([img(32, 48)])
    assert labels[0].shape == (32, 48), labels[0].shape


def segnet_train(device):
    model = to_dev(CL.SegNetBasic(n_class=4, pretrained_model=None), device)
    opt = chainer.optimizers.Adam()
    opt.setup(model)
    x = model.xp.asarray(rng.uniform(-1, 1, (2, 3, 32, 32))
                         .astype(np.float32))
    t = model.xp.asarray(rng.randint(0, 4, (2, 32, 32)).astype(np.int32))
    loss = F.softmax_cross_entropy(model(x), t)
    model.cleargrads()
    loss.backward()
    opt.update()
    assert np.isfinite(float(loss.array))


def to_intel64_method():
    model = CL.SegNetBasic(n_class=4, pretrained_model=None)
    model.to_intel64()
    labels = model.predict([img(16, 16)])
    assert labels[0].shape == (16, 16)


for device in DEVICES:
    check('ResNet50 forward %s' % device, resnet50, device)
    check('ResNet50 FeaturePredictor.predict %s' % device,
          resnet50_predict, device)
    check('ResNet50 train step %s' % device, resnet50_train, device)
    check('SegNetBasic predict %s' % device, segnet, device)
    check('SegNetBasic train step %s' % device, segnet_train, device)
    check('VGG16 pick=pool5 %s' % device, vgg16_pool5, device)
    if not QUICK:
        check('VGG16 forward 224x224 %s' % device, vgg16, device)
    check('SSD300 predict %s' % device, ssd300, device)
    check('SSD300 multibox_loss train step %s' % device, ssd300_train,
          device)
    check('FasterRCNNVGG16 predict %s' % device, faster_rcnn, device)
    check('FasterRCNNTrainChain train step %s' % device, faster_rcnn_train,
          device)
check('Link.to_intel64() + SegNetBasic predict', to_intel64_method)


def detect(model):
    bboxes, labels, scores = model.predict([img(70, 90)])
    assert bboxes[0].shape[1:] == (4,) and labels[0].shape == scores[0].shape


def more_models():
    from chainercv.experimental import links as CEL
    check('YOLOv2 predict', lambda: detect(CL.YOLOv2(n_fg_class=3)))
    check('YOLOv3 predict', lambda: detect(CL.YOLOv3(n_fg_class=3)))
    check('YOLOv2Tiny predict',
          lambda: detect(CEL.YOLOv2Tiny(n_fg_class=3)))
    check('SSD512 predict', lambda: detect(CL.SSD512(n_fg_class=3)))
    x = np.zeros((1, 3, 64, 64), np.float32)
    check('SEResNet50 forward', lambda: CL.SEResNet50(n_class=5)(x))
    check('SEResNeXt50 forward', lambda: CL.SEResNeXt50(n_class=5)(x))
    check('FasterRCNNFPNResNet50 predict', lambda: detect(
        CL.FasterRCNNFPNResNet50(n_fg_class=3, min_size=64, max_size=96)))

    def mask_rcnn():
        model = CL.MaskRCNNFPNResNet50(n_fg_class=3, min_size=64,
                                       max_size=96)
        masks, labels, scores = model.predict([img(70, 90)])
        assert masks[0].shape[1:] == (70, 90), masks[0].shape
    check('MaskRCNNFPNResNet50 predict', mask_rcnn)

    def segment(model):
        labels = model.predict([img(60, 70)])
        assert labels[0].shape == (60, 70), labels[0].shape
    check('DeepLabV3plusXception65 predict', lambda: segment(
        CL.DeepLabV3plusXception65(n_class=4, min_input_size=(65, 65))))
    check('PSPNetResNet50 predict', lambda: segment(
        CEL.PSPNetResNet50(n_class=4, input_size=(65, 65))))


if MORE:
    more_models()

sys.exit(summary('try_chainercv'))
