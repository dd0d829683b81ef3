"""Image preprocessing helpers."""
import numpy


def oversample(images, crop_dims):
    """Ten crops of each CHW image: the four corners, the centre, and the
    horizontal mirrors of those five.

    Args:
        images: a sequence of arrays ``(C, H, W)`` of one shape.
        crop_dims: ``(h, w)`` of the crops.

    Returns:
        An array ``(10 * len(images), C, h, w)``: for each image its five
        crops (top-left, top-right, bottom-left, bottom-right, centre)
        followed by their mirrors.
    """
    channels, src_h, src_w = images[0].shape
    dst_h, dst_w = crop_dims
    top = int(src_h / 2.0 - dst_h / 2.0)
    left = int(src_w / 2.0 - dst_w / 2.0)
    origins = [(0, 0), (0, src_w - dst_w), (src_h - dst_h, 0),
               (src_h - dst_h, src_w - dst_w), (top, left)]
    crops = numpy.empty((10 * len(images), channels, dst_h, dst_w),
                        dtype=images[0].dtype)
    i = 0
    for img in images:
        for y, x in origins:
            crops[i] = img[:, y:y + dst_h, x:x + dst_w]
            i += 1
        crops[i:i + 5] = crops[i - 5:i, :, :, ::-1]
        i += 5
    return crops
