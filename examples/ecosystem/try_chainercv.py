"""Exercise ChainerCV 0.13.1 as a Chainer user would.

    python -m cpuframe.compat examples/ecosystem/try_chainercv.py [--quick]

Models are built with pretrained_model=None and run on small random images
on '@numpy' and '@intel64'; one training step for SegNetBasic and ResNet50.
--quick: '@numpy' only, no full-size VGG16.  --more: also YOLOv2/v3,
YOLOv2Tiny, SSD512, SE-ResNet(X)50, FasterRCNNFPNResNet50,
MaskRCNNFPNResNet50, DeepLabV3plusXception65, PSPNetResNet50 (each device).
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
import chainercv  # noqa: E402,F401
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


def npz_roundtrip():
    # save_npz / load_npz of a chainercv model with BatchNormalization
    # persistents (avg_mean, avg_var, N)
    import tempfile
    model = CL.SegNetBasic(n_class=4, pretrained_model=None)
    x = rng.uniform(-1, 1, (1, 3, 32, 32)).astype(np.float32)
    model(x)  # train mode: updates the running statistics
    with chainer.using_config('train', False):
        y0 = model(x).array
    path = os.path.join(tempfile.mkdtemp(), 'segnet.npz')
    chainer.serializers.save_npz(path, model)
    model2 = CL.SegNetBasic(n_class=4, pretrained_model=None)
    chainer.serializers.load_npz(path, model2)
    with chainer.using_config('train', False):
        y1 = model2(x).array
    np.testing.assert_allclose(y0, y1, rtol=1e-5, atol=1e-6)


def trainer_with_evaluators():
    # A Trainer with chainercv's sliceable datasets, the SSD data pipeline
    # pieces, GradientScaling and WeightDecay hooks, DetectionVOCEvaluator
    # and SemanticSegmentationEvaluator.
    from chainer import training
    from chainer.training import extensions
    from chainercv.chainer_experimental.datasets.sliceable import \
        TupleDataset, TransformDataset
    from chainercv.extensions import DetectionVOCEvaluator, \
        SemanticSegmentationEvaluator
    from chainercv.links.model.ssd import GradientScaling

    n = 4
    imgs = [img(64, 64) for _ in range(n)]
    bboxes = [np.array([[8, 8, 40, 40]], np.float32) for _ in range(n)]
    labels = [np.array([1], np.int32) for _ in range(n)]
    segs = [rng.randint(0, 4, (32, 32)).astype(np.int32) for _ in range(n)]

    # semantic segmentation training + evaluation
    seg_data = TransformDataset(
        TupleDataset(imgs, segs), ('img', 'label'),
        lambda in_data: (transforms.resize(in_data[0], (32, 32)) / 255.,
                         in_data[1]))
    assert len(seg_data.slice[:, 'label']) == n
    model = CL.SegNetBasic(n_class=4, pretrained_model=None)
    train_chain = CL.PixelwiseSoftmaxClassifier(model)
    opt = chainer.optimizers.MomentumSGD(lr=0.01)
    opt.setup(train_chain)
    opt.add_hook(chainer.optimizer_hooks.WeightDecay(5e-4))
    opt.add_hook(GradientScaling(2.0))  # chainercv's hook, also fine here
    it = chainer.iterators.SerialIterator(seg_data, 2)
    trainer = training.Trainer(
        training.StandardUpdater(it, opt), (2, 'iteration'),
        out=os.path.join('/tmp', 'cpuframe_try_chainercv'))
    seg_eval = SemanticSegmentationEvaluator(
        chainer.iterators.SerialIterator(seg_data, 2, repeat=False,
                                         shuffle=False), model)
    trainer.extend(seg_eval, trigger=(2, 'iteration'))
    trainer.extend(extensions.LogReport(trigger=(2, 'iteration')))
    trainer.run()
    log = trainer.get_extension('LogReport').log
    assert 'validation/main/miou' in log[-1], log[-1]

    # detection evaluation on an SSD300
    det_data = TupleDataset(imgs, bboxes, labels)
    ssd = CL.SSD300(n_fg_class=3, pretrained_model=None)
    ssd.use_preset('evaluate')
    det_eval = DetectionVOCEvaluator(
        chainer.iterators.SerialIterator(det_data, 2, repeat=False,
                                         shuffle=False), ssd,
        use_07_metric=True, label_names=('a', 'b', 'c'))
    result = det_eval()
    assert 'main/map' in result, result


def detect(model):
    bboxes, labels, scores = model.predict([img(70, 90)])
    assert bboxes[0].shape[1:] == (4,) and labels[0].shape == scores[0].shape


def more_models(device):
    from chainercv.experimental import links as CEL

    def d(model):
        return to_dev(model, device)

    def t(name):
        return '%s %s' % (name, device)
    check(t('YOLOv2 predict'), lambda: detect(d(CL.YOLOv2(n_fg_class=3))))
    check(t('YOLOv3 predict'), lambda: detect(d(CL.YOLOv3(n_fg_class=3))))
    check(t('YOLOv2Tiny predict'),
          lambda: detect(d(CEL.YOLOv2Tiny(n_fg_class=3))))
    check(t('SSD512 predict'), lambda: detect(d(CL.SSD512(n_fg_class=3))))

    def classify(model):
        x = model.xp.asarray(np.zeros((1, 3, 64, 64), np.float32))
        assert model(x).shape == (1, 5)
    check(t('SEResNet50 forward'),
          lambda: classify(d(CL.SEResNet50(n_class=5))))
    check(t('SEResNeXt50 forward'),
          lambda: classify(d(CL.SEResNeXt50(n_class=5))))
    check(t('FasterRCNNFPNResNet50 predict'), lambda: detect(d(
        CL.FasterRCNNFPNResNet50(n_fg_class=3, min_size=64, max_size=96))))

    def mask_rcnn():
        # With random weights some seeds give degenerate (zero-width)
        # boxes, on which chainercv's segm_to_mask calls cv2.resize with a
        # zero size and fails (same on '@numpy' and '@intel64'): seed it.
        np.random.seed(1)
        model = d(CL.MaskRCNNFPNResNet50(n_fg_class=3, min_size=64,
                                         max_size=96))
        im = np.random.RandomState(1).uniform(0, 255, (3, 70, 90))
        masks, labels, scores = model.predict([im.astype(np.float32)])
        assert masks[0].shape[1:] == (70, 90), masks[0].shape
    check(t('MaskRCNNFPNResNet50 predict'), mask_rcnn)

    def segment(model):
        labels = model.predict([img(60, 70)])
        assert labels[0].shape == (60, 70), labels[0].shape
    check(t('DeepLabV3plusXception65 predict'), lambda: segment(d(
        CL.DeepLabV3plusXception65(n_class=4, min_input_size=(65, 65)))))
    check(t('PSPNetResNet50 predict'), lambda: segment(d(
        CEL.PSPNetResNet50(n_class=4, input_size=(65, 65)))))


check('save_npz/load_npz round trip (SegNetBasic, BN persistents)',
      npz_roundtrip)
check('Trainer + sliceable TransformDataset + WeightDecay/GradientScaling '
      '+ SemanticSegmentationEvaluator + DetectionVOCEvaluator',
      trainer_with_evaluators)

if MORE:
    for device in DEVICES:
        more_models(device)

sys.exit(summary('try_chainercv'))
