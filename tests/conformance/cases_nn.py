"""Case generators of the nn ops and stdlib functions added after the first
recording: depthwise_conv2d, the resizes, batch_norm and stdlib/composite.tfg's
tensordot, conv1d and conv2d_transpose. Imported by cases.py."""
import numpy as np

from cases import DIFFERENTIABLE, FLOATS, NUMBERS, Case, register, rnd, rng_for, tf


@register("depthwise_conv2d")
def depthwise_conv2d(name):
    rng = rng_for(name)
    for dt in FLOATS:
        for pad in ("VALID", "SAME"):
            for s, d in ((1, 1), (2, 1), (1, 2)):
                x, w = rnd(rng, [2, 6, 5, 3], dt), rnd(rng, [3, 2, 3, 2], dt)
                yield Case(f"{dt} {pad} stride {s} dilation {d}",
                           f'depthwise_conv2d($0, $1, strides=[{s}, {s}], padding="{pad}", dilations=[{d}, {d}])',
                           [x, w], lambda x, w, s=s, d=d, p=pad: tf().nn.depthwise_conv2d(
                               x, w, [1, s, s, 1], p, dilations=[d, d]),
                           grad=dt in DIFFERENTIABLE, tol=8.0)
        yield Case(f"{dt} empty batch", 'depthwise_conv2d($0, $1, padding="SAME")',
                   [rnd(rng, [0, 3, 3, 2], dt), rnd(rng, [2, 2, 2, 1], dt)],
                   lambda x, w: tf().nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"))


RESIZE_SIZES = ([5, 7], [2, 3], [1, 1])
RESIZE_MODES = ((False, False), (True, False), (False, True))


@register("resize_bilinear", "resize_nearest_neighbor")
def resize(name):
    rng = rng_for(name)
    bilinear = name == "resize_bilinear"
    api = tf().compat.v1.image.resize_bilinear if bilinear else tf().compat.v1.image.resize_nearest_neighbor
    for dt in FLOATS if bilinear else NUMBERS:
        # TensorFlow's ResizeBilinear always returns (and computes in) f32;
        # tfg keeps the input's dtype, so TensorFlow's answer is cast back
        # and f64 compared at f32's precision.
        tol = 3e7 if (bilinear and dt == "float64") else 4.0
        for size in RESIZE_SIZES:
            for ac, hp in RESIZE_MODES:
                if size == [1, 1] and ac:
                    continue
                x = rnd(rng, [2, 3, 4, 2], dt, -5, 5)
                yield Case(f"{dt} {size} align_corners {ac} half_pixel {hp}",
                           f"{name}($0, #1, align_corners={str(ac).lower()}, half_pixel_centers={str(hp).lower()})",
                           [x, np.array(size, "int32")],
                           lambda x, s, a=ac, h=hp, d=dt: tf().cast(
                               api(x, s, align_corners=a, half_pixel_centers=h), d),
                           grad=dt in DIFFERENTIABLE, tol=tol, grad_tol=tol * 10)
        yield Case(f"{dt} empty batch", f"{name}($0, #1)", [rnd(rng, [0, 3, 4, 1], dt), np.array([2, 2], "int32")],
                   lambda x, s, d=dt: tf().cast(api(x, s), d))


@register("batch_norm")
def batch_norm(name):
    rng = rng_for(name)
    # TensorFlow's FusedBatchNorm takes f16 x only with f32 scale, and no f64.
    for dt in ["float32"]:
        x = rnd(rng, [2, 3, 2, 4], dt, -3, 3)
        scale, offset = rnd(rng, [4], dt, 0.5, 2), rnd(rng, [4], dt)
        mean, var = rnd(rng, [4], dt), rnd(rng, [4], dt, 0.5, 2)
        for training in (True, False):
            for eps in (0.001, 0.1):
                yield Case(f"{dt} training {training} epsilon {eps}",
                           f"batch_norm($0, $1, $2, $3, $4, epsilon={eps}, training={str(training).lower()})",
                           [x, scale, offset, mean, var],
                           lambda x, s, o, m, v, t=training, e=eps: list(tf().compat.v1.nn.fused_batch_norm(
                               x, s, o, None if t else m, None if t else v, epsilon=e, is_training=t)),
                           # TensorFlow's gradient ignores the batch statistics' outputs
                           grad=dt in DIFFERENTIABLE, tol=16.0, grad_outputs=[0])


@register("tensordot")
def tensordot(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        for sa, sb, axes, tfg_axes in (([2, 3], [3, 4], 1, "1"), ([2, 3, 4], [3, 4, 2], 2, "2"),
                                       ([2, 3], [4, 5], 0, "0"), ([3, 2, 4], [4, 3], [[0, 2], [1, 0]],
                                                                 "[[0, 2], [1, 0]]"),
                                       ([2, 3], [2], [0, 0], "[0, 0]")):
            yield Case(f"{dt} axes {tfg_axes}", f"tensordot($0, $1, {tfg_axes})", [rnd(rng, sa, dt), rnd(rng, sb, dt)],
                       lambda a, b, ax=axes: tf().tensordot(a, b, ax), grad=dt in DIFFERENTIABLE, tol=8.0)


@register("conv1d")
def conv1d(name):
    rng = rng_for(name)
    for dt in ("float32", "float64"):
        for pad in ("VALID", "SAME"):
            for s, d in ((1, 1), (2, 1), (1, 2)):
                x, w = rnd(rng, [2, 7, 3], dt), rnd(rng, [3, 3, 2], dt)
                yield Case(f"{dt} {pad} stride {s} dilation {d}",
                           f'conv1d($0, $1, stride={s}, padding="{pad}", dilations={d})', [x, w],
                           lambda x, w, s=s, d=d, p=pad: tf().nn.conv1d(x, w, s, p, dilations=d),
                           grad=d == 1, tol=8.0)  # TensorFlow's CPU has no dilated conv gradient


@register("conv2d_transpose")
def conv2d_transpose(name):
    rng = rng_for(name)
    for dt in ("float32", "float64"):
        for pad, s, in_hw, out_hw in (("SAME", 1, [4, 3], [4, 3]), ("SAME", 2, [3, 3], [6, 5]),
                                      ("VALID", 2, [2, 3], [6, 7]), ("VALID", 1, [3, 2], [5, 4])):
            x, w = rnd(rng, [2] + in_hw + [3], dt), rnd(rng, [3, 3, 2, 3], dt)
            out = [2] + out_hw + [2]
            yield Case(f"{dt} {pad} stride {s} output {out}",
                       f'conv2d_transpose($0, $1, {out}, strides=[{s}, {s}], padding="{pad}")', [x, w],
                       lambda x, w, o=out, s=s, p=pad: tf().nn.conv2d_transpose(x, w, o, [1, s, s, 1], p),
                       grad=True, tol=8.0)
