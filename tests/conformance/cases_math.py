"""Case generators of the math ops added after the first recording:
trigonometric and special functions, selu/gelu, atan2, einsum, band_part,
the segment reductions and unique. Imported by cases.py (which owns Case,
register and the shared dtype lists)."""
import numpy as np

from cases import (ALL, BINARY, DIFFERENTIABLE, FLOATS, INTS, NUMBERS, UNARY, Case, binary, register, rnd,
                   rng_for, tf, unary)

UNARY_MORE = {
    "acos": ("tf.math.acos", FLOATS, (-0.95, 0.95), True),
    "asin": ("tf.math.asin", FLOATS, (-0.95, 0.95), True),
    "atan": ("tf.math.atan", FLOATS, (-4, 4), True),
    "cosh": ("tf.math.cosh", FLOATS, (-3, 3), True),
    "sinh": ("tf.math.sinh", FLOATS, (-3, 3), True),
    "tan": ("tf.math.tan", FLOATS, (-1.4, 1.4), True),
    "erf": ("tf.math.erf", FLOATS, (-3, 3), True),
    "erfc": ("tf.math.erfc", FLOATS, (-3, 5), True),
    "selu": ("tf.nn.selu", FLOATS, (-3, 3), True),
    "is_finite": ("tf.math.is_finite", FLOATS, (-2, 2), False),
    "is_inf": ("tf.math.is_inf", FLOATS, (-2, 2), False),
    "lgamma": ("tf.math.lgamma", FLOATS, (0.1, 6), True),
    # digamma's own gradient (polygamma) is not supported yet: values only.
    "digamma": ("tf.math.digamma", FLOATS, (0.1, 6), False),
}
UNARY.update(UNARY_MORE)
register(*UNARY_MORE)(unary)

BINARY["atan2"] = ("tf.math.atan2", FLOATS, True)
register("atan2")(binary)


@register("gelu")
def gelu(name):
    rng = rng_for(name)
    for dt in FLOATS:
        g = dt in DIFFERENTIABLE
        for approx in (False, True):
            f = (lambda x, a=approx: tf().nn.gelu(x, approximate=a))
            call = f"gelu($0, approximate={str(approx).lower()})"
            yield Case(f"{dt} approximate {approx} random", call, [rnd(rng, [3, 4], dt, -4, 4)], f, grad=g, tol=4.0)
            edge = np.array([0.0, -0.0, 1.0, -1.0, -0.9, 3.0, -3.0, 10.0, -10.0, np.nan, np.inf, -np.inf], dt)
            yield Case(f"{dt} approximate {approx} edge values", call, [edge], f, grad=g, tol=4.0)
        yield Case(f"{dt} empty", "gelu($0)", [rnd(rng, [0, 2], dt)], lambda x: tf().nn.gelu(x), grad=g)


EINSUM = [
    # equation, operand shapes
    ("ij,jk->ik", [[2, 3], [3, 4]]),
    ("ij,jk", [[2, 3], [3, 2]]),
    ("ii->", [[3, 3]]),
    ("ii->i", [[3, 3]]),
    ("ij->ji", [[2, 3]]),
    ("ij->", [[2, 3]]),
    ("i,j->ij", [[3], [4]]),
    ("i,i->", [[5], [5]]),
    ("bij,bjk->bik", [[2, 2, 3], [2, 3, 2]]),
    ("...ij,...jk->...ik", [[2, 1, 2, 3], [3, 3, 2]]),
    ("bij,jk->bik", [[2, 3, 4], [4, 2]]),
    ("ijk->kji", [[2, 3, 4]]),
    ("ij,ij->ij", [[2, 3], [2, 3]]),
    ("ij,kj->ik", [[0, 3], [2, 3]]),
]


@register("einsum")
def einsum(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        g = dt in DIFFERENTIABLE
        for eq, shapes in EINSUM:
            xs = [rnd(rng, s, dt) for s in shapes]
            args = ", ".join(f"${i}" for i in range(len(xs)))
            yield Case(f"{dt} {eq}", f'einsum("{eq}", [{args}])', xs,
                       lambda *a, e=eq: tf().einsum(e, *a), grad=g, tol=8.0)


@register("matrix_band_part")
def band_part(name):
    rng = rng_for(name)
    for dt in ALL:
        x = rnd(rng, [2, 3, 4], dt)
        for lo, hi in ((1, 0), (0, -1), (-1, 0), (2, 1), (-1, -1), (0, 0)):
            for it in (["int32", "int64"] if (lo, hi) == (1, 0) else ["int64"]):
                yield Case(f"{dt} {it} lower {lo} upper {hi}", "matrix_band_part($0, #1, #2)",
                           [x, np.array(lo, it), np.array(hi, it)],
                           lambda x, a, b: tf().linalg.band_part(x, a, b), grad=dt in DIFFERENTIABLE)
    # (tfg also takes strings; TensorFlow's CPU has no string kernel to compare with)


SEGMENT = ["segment_sum", "segment_mean", "segment_max", "segment_min", "segment_prod"]
UNSORTED = ["unsorted_segment_sum", "unsorted_segment_mean", "unsorted_segment_max", "unsorted_segment_min",
            "unsorted_segment_prod"]


def segment_data(rng, name, shape, dt):
    if "prod" in name:
        return rnd(rng, shape, dt, 0.5, 1.5) if dt in FLOATS else rnd(rng, shape, dt, -1, 1)
    return rnd(rng, shape, dt)


@register(*SEGMENT)
def segment(name):
    rng = rng_for(name)
    f = getattr(tf().math, name)
    for dt in NUMBERS:
        g = dt in DIFFERENTIABLE
        for it in INTS:
            # ids with a gap (segment 2 is empty) and a repeated run.
            ids = np.array([0, 0, 1, 3, 3, 3], it)
            yield Case(f"{dt} {it} rows", f"{name}($0, #1)", [segment_data(rng, name, [6, 3], dt), ids],
                       lambda d, i: f(d, i), grad=g, tol=4.0)
        yield Case(f"{dt} vector", f"{name}($0, #1)", [segment_data(rng, name, [5], dt), np.array([0, 1, 1, 1, 4])],
                   lambda d, i: f(d, i), grad=g, tol=4.0)
        yield Case(f"{dt} empty", f"{name}($0, #1)", [segment_data(rng, name, [0, 2], dt), np.zeros([0], "int32")],
                   lambda d, i: f(d, i))
    # Ties: the gradient of max/min is shared by the rows that reach it.
    if name in ("segment_max", "segment_min"):
        d = np.array([[1.0, 2.0], [1.0, 3.0], [2.0, 2.0]], "float64")
        yield Case("float64 ties", f"{name}($0, #1)", [d, np.array([0, 0, 0], "int32")], lambda d, i: f(d, i),
                   grad=True)
        d = np.array([[np.nan, 2.0], [1.0, np.nan], [-np.inf, np.inf]], "float32")
        yield Case("float32 NaN and inf", f"{name}($0, #1)", [d, np.array([0, 0, 1], "int32")], lambda d, i: f(d, i))
    if name == "segment_prod":
        d = np.array([[0.0, 2.0], [3.0, 0.0], [0.0, 0.0], [4.0, 5.0]], "float64")
        yield Case("float64 zeros", f"{name}($0, #1)", [d, np.array([0, 0, 1, 1], "int32")], lambda d, i: f(d, i),
                   grad=True)


@register(*UNSORTED)
def unsorted_segment(name):
    rng = rng_for(name)
    f = getattr(tf().math, name)
    for dt in NUMBERS:
        g = dt in DIFFERENTIABLE
        for it in INTS:
            # unsorted, repeated, negative (dropped) ids; segment 3 stays empty.
            ids = np.array([2, 0, -1, 2, 4, 0], it)
            yield Case(f"{dt} {it} rows", f"{name}($0, #1, #2)",
                       [segment_data(rng, name, [6, 3], dt), ids, np.array(5, it)],
                       lambda d, i, n: f(d, i, n), grad=g, tol=4.0)
        ids = np.array([[1, 0], [1, -1]], "int32")
        yield Case(f"{dt} rank-2 ids", f"{name}($0, #1, #2)",
                   [segment_data(rng, name, [2, 2, 3], dt), ids, np.array(3, "int64")],
                   lambda d, i, n: f(d, i, n), grad=g, tol=4.0)
        yield Case(f"{dt} empty", f"{name}($0, #1, #2)",
                   [segment_data(rng, name, [0, 2], dt), np.zeros([0], "int32"), np.array(2, "int32")],
                   lambda d, i, n: f(d, i, n))
    if name in ("unsorted_segment_max", "unsorted_segment_min"):
        d = np.array([[1.0, 2.0], [1.0, 3.0], [2.0, 2.0]], "float64")
        yield Case("float64 ties", f"{name}($0, #1, #2)", [d, np.array([1, 1, 1], "int32"), np.array(2, "int32")],
                   lambda d, i, n: f(d, i, n), grad=True)
        d = np.array([[np.nan, 2.0], [1.0, np.nan], [-np.inf, np.inf]], "float32")
        yield Case("float32 NaN and inf", f"{name}($0, #1, #2)",
                   [d, np.array([0, 0, 1], "int32"), np.array(2, "int32")], lambda d, i, n: f(d, i, n))
    if name == "unsorted_segment_prod":
        d = np.array([[0.0, 2.0], [3.0, 0.0], [0.0, 0.0], [4.0, 5.0]], "float64")
        yield Case("float64 zeros", f"{name}($0, #1, #2)", [d, np.array([1, 1, 0, 0], "int32"), np.array(2, "int32")],
                   lambda d, i, n: f(d, i, n), grad=True)


@register("unique")
def unique(name):
    rng = rng_for(name)
    for dt in ALL:
        x = rnd(rng, [8], dt, -2, 2) if dt != "bool" else np.array([True, True, False, True])
        if dt in FLOATS:
            x = np.round(x).astype(dt)  # repeats
        for it in INTS:
            yield Case(f"{dt} {it}", f"unique($0, out_idx={it.replace('int', 'i')})", [x],
                       lambda x, o=it: list(tf().unique(x, out_idx=o)))
        yield Case(f"{dt} empty", "unique($0)", [np.zeros([0], dt)], lambda x: list(tf().unique(x)))
    yield Case("float64 NaNs", "unique($0)", [np.array([np.nan, 1.0, np.nan, 1.0], "float64")],
               lambda x: list(tf().unique(x)))
    yield Case("float32 signed zeros", "unique($0)", [np.array([0.0, -0.0, 1.0, -0.0], "float32")],
               lambda x: list(tf().unique(x)))
    yield Case("string", "unique($0)", [np.array([b"b", b"a", b"b", b"", b"a"])], lambda x: list(tf().unique(x)))
