"""Case generators of the array ops: creation (fill, zeros, ones, range),
shape queries, slicing and splitting, gather_nd/scatter_nd, argwhere,
broadcast_like, space_to_depth/depth_to_space and decode_raw. Imported by
cases.py."""
import numpy as np

from cases import ALL, DIFFERENTIABLE, FLOATS, INTS, NUMBERS, Case, edges, register, rnd, rng_for, tf

TFG_DTYPE = {"float16": "f16", "float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64",
             "bool": "bool", "string": "string"}
STRINGS = np.array([[b"a", b"bc", b""], [b"d\xff", b"e f", b"g"]])


def strings(shape):
    n = int(np.prod(shape))
    if n == 0:
        return np.zeros(shape, "S1")
    return np.array([b"s%d" % i for i in range(n)]).reshape(shape)


def values(rng, shape, dt, lo=-2, hi=2):
    return strings(shape) if dt == "string" else rnd(rng, shape, dt, lo, hi)


@register("fill")
def fill(name):
    rng = rng_for(name)
    for dt in ALL + ["string"]:
        v = np.array(b"x y") if dt == "string" else rnd(rng, [], dt)
        for dims in ([2, 3], [0, 2], []):
            yield Case(f"{dt} {dims}", f"fill({dims}, $0)", [v], lambda v, d=dims: tf().fill(d, v),
                       grad=dt in DIFFERENTIABLE)


@register("zeros", "ones")
def zeros_ones(name):
    f = getattr(tf(), name)
    for dt in ALL + (["string"] if name == "zeros" else []):
        for shape in ([2, 3], [0], []):
            yield Case(f"{dt} {shape}", f"{name}({shape}, dtype={TFG_DTYPE[dt]})", [],
                       lambda s=shape, d=dt: f(s, dtype=d))


@register("range")
def range_(name):
    for dt in NUMBERS:
        triples = [(0, 5, 1), (5, 0, -2), (2, 2, 1), (-3, 4, 3)]
        if dt in FLOATS:
            triples += [(0.5, 2.0, 0.25), (1.0, -1.0, -0.3)]
        for a, b, d in triples:
            xs = [np.array(a, dt), np.array(b, dt), np.array(d, dt)]
            yield Case(f"{dt} {a} {b} {d}", "range($0, $1, $2)", xs, lambda a, b, d: tf().range(a, b, d),
                       tol=4.0)


@register("rank", "shape", "size")
def shape_queries(name):
    rng = rng_for(name)
    for dt in ALL + ["string"]:
        for shape in ([2, 3, 1], [], [0, 4]):
            x = values(rng, shape, dt)
            if name == "rank":
                yield Case(f"{dt} {shape}", "rank($0)", [x], lambda x: tf().rank(x))
                continue
            f = getattr(tf(), name)
            for out in INTS:
                yield Case(f"{dt} {shape} {out}", f"{name}($0, out_type={TFG_DTYPE[out]})", [x],
                           lambda x, o=out: f(x, out_type=tf().as_dtype(o)))


@register("slice")
def slice_(name):
    rng = rng_for(name)
    for dt in ALL + ["string"]:
        x = values(rng, [3, 4, 2], dt)
        for begin, size in (([1, 0, 0], [2, -1, 1]), ([0, 1, 1], [-1, 2, 1]), ([2, 4, 0], [1, 0, 2])):
            yield Case(f"{dt} {begin} {size}", f"slice($0, {begin}, {size})", [x],
                       lambda x, b=begin, s=size: tf().slice(x, b, s), grad=dt in DIFFERENTIABLE)


@register("split")
def split(name):
    rng = rng_for(name)
    for dt in ALL + ["string"]:
        x = values(rng, [4, 6], dt)
        for num, axis in ((2, 0), (3, 1), (1, 1)):
            yield Case(f"{dt} num {num} axis {axis}", f"split($0, num={num}, axis={axis})", [x],
                       lambda x, n=num, a=axis: tf().split(x, n, axis=a), grad=dt in DIFFERENTIABLE)
        for sizes, axis in (([1, 3], 0), ([2, -1, 0], -1)):
            yield Case(f"{dt} sizes {sizes} axis {axis}", f"split($0, {sizes}, axis={axis})", [x],
                       lambda x, s=sizes, a=axis: tf().split(x, s, axis=a), grad=dt in DIFFERENTIABLE)


STRIDED = [
    # begin, end, strides, masks (begin, end, shrink, new_axis, ellipsis)
    ([0, 1], [2, 3], [1, 1], (0, 0, 0, 0, 0)),
    ([-1, 0], [-4, 4], [-1, 2], (0, 0, 0, 0, 0)),
    ([1, 0], [0, 0], [1, 1], (0, 2, 1, 0, 0)),
    ([0, 0, 0], [0, 0, 0], [1, 1, 1], (0, 0, 0, 2, 1)),
    ([0, 5], [3, -10], [2, -2], (1, 0, 0, 0, 0)),
    ([0, -1], [0, 0], [1, 1], (1, 1, 2, 0, 0)),
    ([2, 0], [10, 5], [1, 3], (0, 0, 0, 0, 0)),
    ([0, 0, 2], [0, 0, 0], [1, 1, 1], (0, 0, 4, 0, 1)),
]


@register("strided_slice")
def strided_slice(name):
    rng = rng_for(name)
    for dt in ALL + ["string"]:
        x = values(rng, [3, 4, 3] if dt != "string" else [3, 4, 3], dt)
        for begin, end, strides, (bm, em, sm, nm, elm) in STRIDED:
            call = (f"strided_slice($0, {begin}, {end}, {strides}, begin_mask={bm}, end_mask={em}, "
                    f"shrink_axis_mask={sm}, new_axis_mask={nm}, ellipsis_mask={elm})")
            yield Case(f"{dt} {begin} {end} {strides} masks {bm} {em} {sm} {nm} {elm}", call, [x],
                       lambda x, b=begin, e=end, s=strides, m=(bm, em, sm, nm, elm): tf().strided_slice(
                           x, b, e, s, begin_mask=m[0], end_mask=m[1], shrink_axis_mask=m[2], new_axis_mask=m[3],
                           ellipsis_mask=m[4]), grad=dt in DIFFERENTIABLE)


@register("gather_nd")
def gather_nd(name):
    rng = rng_for(name)
    for dt in ALL + ["string"]:
        p = values(rng, [3, 4, 2], dt)
        for it in INTS:
            for idx in ([[0, 1], [2, 3], [0, 1]], [[[1]], [[2]]], [[2, 0, 1]], np.zeros([0, 2])):
                i = np.array(idx, it)
                yield Case(f"{dt} {it} indices {list(i.shape)}", "gather_nd($0, #1)", [p, i],
                           lambda p, i: tf().gather_nd(p, i), grad=dt in DIFFERENTIABLE)


@register("scatter_nd")
def scatter_nd(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        for it in INTS:
            # a repeated index tuple adds up
            i = np.array([[0, 1], [2, 0], [0, 1]], it)
            yield Case(f"{dt} {it} elements", "scatter_nd(#0, $1, #2)", [i, rnd(rng, [3], dt), np.array([3, 2], it)],
                       lambda i, u, s: tf().scatter_nd(i, u, s), grad=dt in DIFFERENTIABLE)
            i = np.array([[2], [0]], it)
            yield Case(f"{dt} {it} rows", "scatter_nd(#0, $1, #2)", [i, rnd(rng, [2, 2], dt), np.array([4, 2], it)],
                       lambda i, u, s: tf().scatter_nd(i, u, s), grad=dt in DIFFERENTIABLE)
        yield Case(f"{dt} no updates", "scatter_nd(#0, $1, #2)",
                   [np.zeros([0, 1], "int32"), rnd(rng, [0, 2], dt), np.array([3, 2], "int32")],
                   lambda i, u, s: tf().scatter_nd(i, u, s))


@register("argwhere")
def argwhere(name):
    rng = rng_for(name)
    # TensorFlow's Where has no f16 kernel and refuses a scalar.
    for dt in ["float32", "float64", "int32", "int64", "bool"]:
        x = rnd(rng, [3, 4], dt, -1, 1)
        yield Case(f"{dt} rank 2", "argwhere($0)", [x], lambda x: tf().where(x))
        yield Case(f"{dt} rank 3", "argwhere($0)", [rnd(rng, [2, 1, 3], dt, -1, 1)], lambda x: tf().where(x))
        yield Case(f"{dt} empty", "argwhere($0)", [rnd(rng, [0, 3], dt)], lambda x: tf().where(x))
        yield Case(f"{dt} edge values", "argwhere($0)", [edges(dt)], lambda x: tf().where(x))


@register("broadcast_like")
def broadcast_like(name):
    rng = rng_for(name)
    for dt in FLOATS:
        for sx, sl in (([3], [2, 3]), ([2, 1], [2, 4]), ([], [2, 2]), ([1, 3], [0, 3])):
            yield Case(f"{dt} {sx} to {sl}", "broadcast_like($0, $1)", [rnd(rng, sx, dt), rnd(rng, sl, dt)],
                       lambda x, like: tf().broadcast_to(x, tf().shape(like)), grad=dt in DIFFERENTIABLE)


@register("space_to_depth", "depth_to_space")
def space_depth(name):
    rng = rng_for(name)
    f = getattr(tf().nn, name)
    for dt in ALL + ["string"]:
        for b in (2, 3):
            shape = [2, 2 * b, 4 * b if b == 2 else b, 3] if name == "space_to_depth" else [2, 2, 3, 2 * b * b]
            yield Case(f"{dt} block {b}", f"{name}($0, {b})", [values(rng, shape, dt)],
                       lambda x, b=b: f(x, b), grad=dt in DIFFERENTIABLE)
        shape = [0, 4, 4, 1] if name == "space_to_depth" else [0, 2, 2, 4]
        yield Case(f"{dt} empty", f"{name}($0, 2)", [values(rng, shape, dt)], lambda x: f(x, 2))


@register("decode_raw")
def decode_raw(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        size = np.dtype(dt).itemsize
        for little in (True, False):
            raw = rnd(rng, [2, 3], dt, -100, 100).astype(np.dtype(dt).newbyteorder("<" if little else ">"))
            # bytes that end in a NUL would lose it in an 'S' array: keep the last byte non-zero
            b = bytearray(raw.tobytes())
            for r in range(2):
                b[(r + 1) * 3 * size - 1] |= 1
            x = np.array([bytes(b[r * 3 * size:(r + 1) * 3 * size]) for r in range(2)])
            yield Case(f"{dt} little_endian {little}",
                       f"decode_raw($0, {TFG_DTYPE[dt]}, little_endian={str(little).lower()})", [x],
                       lambda x, d=dt, le=little: tf().io.decode_raw(x, d, little_endian=le))
        px = np.array([bytes([0, 255, 7, 128]), bytes([1, 2, 3, 200])])
        yield Case(f"{dt} from u8", f'decode_raw($0, {TFG_DTYPE[dt]}, source="u8")', [px],
                   lambda x, d=dt: tf().cast(tf().io.decode_raw(x, "uint8"), d))
