"""Case generators of the conformance suite, one per tfg op or stdlib
function, keyed by the name in ops/tf_op_map.tsv. Each yields Cases: the
inputs, the tfg call ($i: input i fed through a placeholder, #i: input i as a
host constant, @i: a variable initialised to input i) and the same
computation in TensorFlow. This file holds the first ops' generators; the
cases_*.py files imported at its end hold the others by kind. Only record.py
runs them (they need TensorFlow); the recorded data carries everything
replay.py needs.
"""
import zlib

import numpy as np

FLOATS = ["float16", "float32", "float64"]
INTS = ["int32", "int64"]
NUMBERS = FLOATS + INTS
DIFFERENTIABLE = ("float32", "float64")
GENERATORS = {}


class Case:
    """One case. In `call`, $i is input i fed through a placeholder, #i input
    i as a host constant and @i a variable initialised to input i (the case's
    TensorFlow function then returns the op's value and, last, the variable's
    value after the op: replay reads the tfg variable back the same way).
    grad_outputs: the outputs whose weighted sum is differentiated (default:
    every float output)."""

    def __init__(self, label, call, inputs, tf, grad=False, tol=1.0, zero_sign=False, grad_tol=None,
                 grad_outputs=None):
        self.label, self.call, self.inputs, self.tf = label, call, [np.asarray(x) for x in inputs], tf
        self.grad, self.tol, self.zero_sign = grad, tol, zero_sign
        self.grad_tol = grad_tol if grad_tol is not None else tol * 10
        self.grad_outputs = grad_outputs
        self.host = sorted({i for i in range(len(self.inputs)) if f"#{i}" in call})
        self.var = sorted({i for i in range(len(self.inputs)) if f"@{i}" in call})
        self._rng = np.random.default_rng(zlib.crc32((label + call).encode()))

    def wrt(self):
        if not self.grad:
            return []
        return [i for i, x in enumerate(self.inputs)
                if i not in self.host and i not in self.var and x.dtype.name in DIFFERENTIABLE]

    def weights(self, outs):
        if not self.wrt():
            return [None] * len(outs)
        return [self._rng.uniform(-1, 1, o.shape).astype(o.dtype)
                if o.dtype.name in DIFFERENTIABLE and (self.grad_outputs is None or j in self.grad_outputs) else None
                for j, o in enumerate(outs)]

    def meta(self, n_out, weighted, has_grads, listed=False):
        """listed: TensorFlow returned a list (tfg's op then returns one too,
        even of one tensor)."""
        return {"label": self.label, "call": self.call, "host": self.host, "var": self.var, "listed": listed,
                "n_in": len(self.inputs), "n_out": n_out, "weighted": weighted,
                "wrt": self.wrt() if has_grads else [],
                "tol": self.tol, "grad_tol": self.grad_tol, "zero_sign": self.zero_sign}


def register(*names):
    def wrap(fn):
        for n in names:
            GENERATORS[n] = (lambda n=n: fn(n))
        return fn
    return wrap


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def rnd(rng, shape, dt, lo=-2.0, hi=2.0):
    if dt == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dt in INTS:
        return rng.integers(int(lo) - 3, int(hi) + 4, shape).astype(dt)
    return rng.uniform(lo, hi, shape).astype(dt)


def edges(dt):
    if dt == "bool":
        return np.array([True, False])
    if dt in INTS:
        i = np.iinfo(dt)
        return np.array([0, 1, -1, 2, -7, 100, i.max, i.min], dt)
    f = np.finfo(dt)
    return np.array([0.0, -0.0, 1.0, -1.0, 0.5, -1.5, 2.5, 3.7, -0.3, np.nan, np.inf, -np.inf, f.max, -f.max], dt)


def denormals(dt):
    """Subnormal values next to zeros and ones: TensorFlow's CPU kernels flush
    them to zero (f32, f64), tfg keeps them (a known difference)."""
    f = np.finfo(dt)
    return np.array([f.smallest_subnormal, -f.smallest_subnormal, f.smallest_normal / 4, 0.0, -0.0, 1.0], dt)


def tf():
    import tensorflow
    return tensorflow


# ---- elementwise --------------------------------------------------------

UNARY = {
    # name: (tf function, dtypes, (lo, hi) of random inputs, differentiable)
    "abs": ("tf.math.abs", NUMBERS, (-2, 2), True),
    "ceil": ("tf.math.ceil", FLOATS, (-3, 3), False),
    "cos": ("tf.math.cos", FLOATS, (-3, 3), True),
    "exp": ("tf.math.exp", FLOATS, (-3, 3), True),
    "expm1": ("tf.math.expm1", FLOATS, (-3, 3), True),
    "floor": ("tf.math.floor", FLOATS, (-3, 3), False),
    "log": ("tf.math.log", FLOATS, (0.1, 3), True),
    "log1p": ("tf.math.log1p", FLOATS, (-0.9, 3), True),
    "neg": ("tf.math.negative", NUMBERS, (-2, 2), True),
    "reciprocal": ("tf.math.reciprocal", FLOATS, (0.2, 3), True),
    "round": ("tf.math.round", FLOATS, (-3, 3), False),
    "rsqrt": ("tf.math.rsqrt", FLOATS, (0.1, 3), True),
    "sigmoid": ("tf.math.sigmoid", FLOATS, (-4, 4), True),
    "sign": ("tf.math.sign", NUMBERS, (-2, 2), False),
    "sin": ("tf.math.sin", FLOATS, (-3, 3), True),
    "sqrt": ("tf.math.sqrt", FLOATS, (0.1, 3), True),
    "square": ("tf.math.square", NUMBERS, (-2, 2), True),
    "tanh": ("tf.math.tanh", FLOATS, (-3, 3), True),
    "relu": ("tf.nn.relu", NUMBERS, (-2, 2), True),
    "relu6": ("tf.nn.relu6", NUMBERS, (-3, 8), True),
    "elu": ("tf.nn.elu", FLOATS, (-3, 3), True),
    "softplus": ("tf.math.softplus", FLOATS, (-3, 3), True),
    "identity": ("tf.identity", NUMBERS + ["bool"], (-2, 2), True),
    "stop_gradient": ("tf.stop_gradient", NUMBERS, (-2, 2), False),
    "zeros_like": ("tf.zeros_like", NUMBERS + ["bool"], (-2, 2), False),
    "ones_like": ("tf.ones_like", NUMBERS + ["bool"], (-2, 2), False),
    "logical_not": ("tf.math.logical_not", ["bool"], (0, 1), False),
    "leaky_relu": ("tf.nn.leaky_relu", FLOATS, (-2, 2), True),
    "softsign": ("tf.nn.softsign", FLOATS, (-3, 3), True),
    "is_nan": ("tf.math.is_nan", FLOATS, (-2, 2), False),
}


def resolve(path):
    obj = tf()
    for part in path.split(".")[1:]:
        obj = getattr(obj, part)
    return obj


@register(*UNARY)
def unary(name):
    api, dtypes, (lo, hi), diff = UNARY[name]
    rng = rng_for(name)
    fn = lambda x: resolve(api)(x)  # noqa: E731
    for dt in dtypes:
        g = diff and dt in DIFFERENTIABLE
        tol = 4.0 if name in ("expm1", "softplus", "elu") else 1.0
        # TensorFlow's relu(-0.0) is -0.0 or +0.0 depending on whether Eigen's
        # vectorized max handles the element: the sign is not defined there.
        zs = name not in ("relu", "relu6")
        yield Case(f"{dt} random", f"{name}($0)", [rnd(rng, [2, 3], dt, lo, hi)], fn, grad=g, tol=tol, zero_sign=zs)
        yield Case(f"{dt} edge values", f"{name}($0)", [edges(dt)], fn, grad=g, tol=tol, zero_sign=zs)
        if dt in FLOATS:
            yield Case(f"{dt} denormals", f"{name}($0)", [denormals(dt)], fn, grad=g, tol=tol, zero_sign=zs)
        yield Case(f"{dt} empty", f"{name}($0)", [rnd(rng, [0, 3], dt)], fn, grad=g)
        yield Case(f"{dt} scalar", f"{name}($0)", [rnd(rng, [], dt, lo, hi)], fn, grad=g, tol=tol)


BINARY = {
    "add": ("tf.math.add", NUMBERS, True), "sub": ("tf.math.subtract", NUMBERS, True),
    "mul": ("tf.math.multiply", NUMBERS, True), "div": ("tf.math.truediv", FLOATS, True),
    "floordiv": ("tf.math.floordiv", NUMBERS, False), "mod": ("tf.math.floormod", NUMBERS, False),
    "pow": ("tf.math.pow", NUMBERS, True), "maximum": ("tf.math.maximum", NUMBERS, True),
    "minimum": ("tf.math.minimum", NUMBERS, True), "equal": ("tf.math.equal", NUMBERS + ["bool"], False),
    "not_equal": ("tf.math.not_equal", NUMBERS + ["bool"], False), "less": ("tf.math.less", NUMBERS, False),
    "less_equal": ("tf.math.less_equal", NUMBERS, False), "greater": ("tf.math.greater", NUMBERS, False),
    "greater_equal": ("tf.math.greater_equal", NUMBERS, False),
    "logical_and": ("tf.math.logical_and", ["bool"], False), "logical_or": ("tf.math.logical_or", ["bool"], False),
    "logical_xor": ("tf.math.logical_xor", ["bool"], False),
    "squared_difference": ("tf.math.squared_difference", NUMBERS, True),
}
SHAPES = [([2, 3], [3]), ([2, 1], [1, 3]), ([], [2, 3]), ([0, 3], [3]), ([2, 3], [2, 3])]


def safe_ints(name, dt, x, y):
    """TensorFlow fails (or traps) on integer division by zero and INT_MIN / -1,
    and on negative integer powers: keep them out of integer cases."""
    if dt not in INTS:
        return x, y
    if name in ("floordiv", "mod"):
        y = np.where(y == 0, 3, y).astype(dt)
        y = np.where((x == np.iinfo(dt).min) & (y == -1), 5, y).astype(dt)
    if name == "pow":
        y = np.clip(np.abs(y), 0, 5).astype(dt)
        x = np.clip(x, -50, 50).astype(dt)
    return x, y


@register(*BINARY)
def binary(name):
    api, dtypes, diff = BINARY[name]
    rng = rng_for(name)
    fn = lambda x, y: resolve(api)(x, y)  # noqa: E731
    # IEEE leaves the sign of max(0, -0) and min(0, -0) open.
    zero_sign = name not in ("maximum", "minimum")
    for dt in dtypes:
        g = diff and dt in DIFFERENTIABLE
        lo, hi = (0.2, 2.0) if name == "pow" else (-2.0, 2.0)
        for sx, sy in SHAPES:
            x, y = safe_ints(name, dt, rnd(rng, sx, dt, lo, hi), rnd(rng, sy, dt, -2, 2))
            yield Case(f"{dt} {sx} {sy}", f"{name}($0, $1)", [x, y], fn, grad=g, zero_sign=zero_sign)
        e = edges(dt)
        x, y = np.repeat(e[:, None], len(e), 1), np.repeat(e[None, :], len(e), 0)
        x, y = safe_ints(name, dt, x, y)
        yield Case(f"{dt} edge values", f"{name}($0, $1)", [x, y], fn, grad=g, zero_sign=zero_sign)
        if dt in FLOATS:
            d = denormals(dt)
            x, y = np.repeat(d[:, None], len(d), 1), np.repeat(d[None, :], len(d), 0)
            yield Case(f"{dt} denormals", f"{name}($0, $1)", [x, y], fn, grad=g, zero_sign=zero_sign)


# ---- reductions ---------------------------------------------------------

REDUCE = {"sum": "reduce_sum", "mean": "reduce_mean", "max": "reduce_max", "min": "reduce_min",
          "prod": "reduce_prod"}


def tfg_axis(axis, keepdims):
    args = ""
    if axis is not None:
        args += f", axis={list(axis) if isinstance(axis, tuple) else axis}"
    if keepdims:
        args += ", keepdims=true"
    return args


@register(*REDUCE)
def reduction(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        g = dt in DIFFERENTIABLE
        fn_of = lambda a, k: (lambda x: getattr(tf().math, REDUCE[name])(x, axis=list(a) if isinstance(a, tuple) else a, keepdims=k))  # noqa: E731,E501
        x = rnd(rng, [2, 3, 4], dt, 0.5, 1.5) if name == "prod" else rnd(rng, [2, 3, 4], dt)
        for axis, keep in [(None, False), (0, False), ((0, 2), True), (-1, False), (1, True), ((), False)]:
            yield Case(f"{dt} axis {axis} keepdims {keep}", f"{name}($0{tfg_axis(axis, keep)})", [x],
                       fn_of(axis, keep), grad=g, tol=4.0)
        e = rnd(rng, [0, 3], dt)
        for axis in [None, 0, 1]:
            yield Case(f"{dt} empty axis {axis}", f"{name}($0{tfg_axis(axis, False)})", [e], fn_of(axis, False))
        if name != "prod" or dt in FLOATS:
            yield Case(f"{dt} edge values", f"{name}($0)", [edges(dt)], fn_of(None, False))


@register("argmax", "argmin")
def argminmax(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        fn_of = lambda a: (lambda x: getattr(tf().math, name)(x, axis=a))  # noqa: E731
        x = rnd(rng, [3, 4], dt)
        for axis in [0, 1, -1]:
            yield Case(f"{dt} axis {axis}", f"{name}($0, axis={axis})", [x], fn_of(axis))
        yield Case(f"{dt} ties", f"{name}($0, axis=1)", [np.array([[1, 3, 3, 1], [2, 2, 2, 2]], dt)], fn_of(1))
        yield Case(f"{dt} edge values", f"{name}($0, axis=0)", [edges(dt)], fn_of(0))


@register("reduce_any", "reduce_all")
def any_all(name):
    rng = rng_for(name)
    fn_of = lambda a: (lambda x: getattr(tf().math, name)(x, axis=a))  # noqa: E731
    x = rnd(rng, [3, 4], "bool")
    for axis in [None, 0, 1]:
        yield Case(f"axis {axis}", f"{name}($0{tfg_axis(axis, False)})", [x], fn_of(axis))
    yield Case("empty", f"{name}($0)", [np.zeros([0, 2], bool)], fn_of(None))


@register("count_nonzero")
def count_nonzero(name):
    rng = rng_for(name)
    for dt in NUMBERS + ["bool"]:
        x = rnd(rng, [3, 4], dt, -1, 1)
        yield Case(f"{dt}", f"count_nonzero($0, axis=1)", [x], lambda x: tf().math.count_nonzero(x, axis=1))


# ---- math and nn --------------------------------------------------------

@register("cast")
def cast(name):
    rng = rng_for(name)
    for src in NUMBERS + ["bool"]:
        for dst in NUMBERS + ["bool"]:
            x = edges(src) if src in INTS + ["bool"] else np.concatenate([edges(src)[:9], rnd(rng, [4], src, -300, 300)])
            yield Case(f"{src} to {dst}", f"cast($0, {dst.replace('float', 'f').replace('int', 'i')})", [x],
                       lambda x, d=dst: tf().cast(x, d), zero_sign=True)


@register("matmul")
def matmul(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        g = dt in DIFFERENTIABLE
        for ta in (False, True):
            for tb in (False, True):
                a = rnd(rng, [4, 3] if ta else [3, 4], dt)
                b = rnd(rng, [5, 4] if tb else [4, 5], dt)
                yield Case(f"{dt} ta {ta} tb {tb}",
                           f"matmul($0, $1, transpose_a={str(ta).lower()}, transpose_b={str(tb).lower()})", [a, b],
                           lambda a, b, ta=ta, tb=tb: tf().linalg.matmul(a, b, transpose_a=ta, transpose_b=tb),
                           grad=g, tol=8.0)
        yield Case(f"{dt} empty inner", "matmul($0, $1)", [rnd(rng, [2, 0], dt), rnd(rng, [0, 3], dt)],
                   lambda a, b: tf().linalg.matmul(a, b))


@register("softmax", "log_softmax")
def softmax(name):
    rng = rng_for(name)
    for dt in FLOATS:
        g = dt in DIFFERENTIABLE
        f = getattr(tf().nn, name)
        for axis in (-1, 0):
            yield Case(f"{dt} axis {axis}", f"{name}($0, axis={axis})", [rnd(rng, [3, 4], dt, -5, 5)],
                       lambda x, a=axis: f(x, axis=a), grad=g, tol=4.0)
        yield Case(f"{dt} large logits", f"{name}($0)", [np.array([[1000, 0, -1000], [-np.inf, 0, 1]], dt)],
                   lambda x: f(x), grad=g)
        yield Case(f"{dt} empty", f"{name}($0)", [rnd(rng, [0, 3], dt)], lambda x: f(x))


@register("cumsum", "cumprod")
def scan(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        g = dt in DIFFERENTIABLE
        f = getattr(tf().math, name)
        x = rnd(rng, [3, 4], dt, 0.5, 1.5) if name == "cumprod" else rnd(rng, [3, 4], dt)
        for axis in (0, 1):
            for ex in (False, True):
                for rev in (False, True):
                    yield Case(f"{dt} axis {axis} exclusive {ex} reverse {rev}",
                               f"{name}($0, axis={axis}, exclusive={str(ex).lower()}, reverse={str(rev).lower()})",
                               [x], lambda x, a=axis, e=ex, r=rev: f(x, axis=a, exclusive=e, reverse=r), grad=g, tol=4.0)
        yield Case(f"{dt} empty", f"{name}($0, axis=0)", [rnd(rng, [0, 2], dt)], lambda x: f(x, axis=0))


@register("clip_by_value")
def clip_by_value(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        g = dt in DIFFERENTIABLE
        x = rnd(rng, [3, 4], dt, -3, 3)
        lo, hi = np.array(-1, dt), np.array(1, dt)
        yield Case(f"{dt}", "clip_by_value($0, $1, $2)", [x, lo, hi], lambda x, a, b: tf().clip_by_value(x, a, b),
                   grad=g, zero_sign=True)
    e = edges("float32")
    yield Case("float32 edge values", "clip_by_value($0, $1, $2)", [e, np.float32(-1), np.float32(1)],
               lambda x, a, b: tf().clip_by_value(x, a, b), zero_sign=True)


@register("l2_loss")
def l2_loss(name):
    rng = rng_for(name)
    for dt in FLOATS:
        yield Case(dt, "l2_loss($0)", [rnd(rng, [3, 4], dt)], lambda x: tf().nn.l2_loss(x),
                   grad=dt in DIFFERENTIABLE, tol=4.0)


@register("bias_add")
def bias_add(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        yield Case(dt, "bias_add($0, $1)", [rnd(rng, [2, 3, 4], dt), rnd(rng, [4], dt)],
                   lambda x, b: tf().nn.bias_add(x, b), grad=dt in DIFFERENTIABLE)


@register("softmax_cross_entropy_with_logits")
def softmax_ce(name):
    rng = rng_for(name)
    for dt in FLOATS:
        logits = rnd(rng, [3, 4], dt, -3, 3)
        labels = rng.dirichlet(np.ones(4), 3).astype(dt)
        yield Case(dt, "softmax_cross_entropy_with_logits($0, $1)", [logits, labels],
                   lambda lo, la: tf().nn.softmax_cross_entropy_with_logits(labels=la, logits=lo),
                   grad=dt in DIFFERENTIABLE, tol=4.0)


@register("sparse_softmax_cross_entropy", "sparse_softmax_cross_entropy_with_logits")
def sparse_ce(name):
    rng = rng_for(name)
    call = ("sparse_softmax_cross_entropy($0, #1)" if name == "sparse_softmax_cross_entropy"
            else "sparse_softmax_cross_entropy_with_logits(labels=#1, logits=$0)")
    for dt in FLOATS:
        for it in INTS:
            logits = rnd(rng, [3, 4], dt, -3, 3)
            yield Case(f"{dt} {it}", call, [logits, rng.integers(0, 4, [3]).astype(it)],
                       lambda lo, la: tf().nn.sparse_softmax_cross_entropy_with_logits(labels=la, logits=lo),
                       grad=dt in DIFFERENTIABLE, tol=4.0)


@register("sigmoid_cross_entropy_with_logits")
def sigmoid_ce(name):
    rng = rng_for(name)
    for dt in FLOATS:
        logits = np.concatenate([rnd(rng, [6], dt, -4, 4), np.array([0, 0, 0, 50, -50, -0.0], dt)])
        labels = np.concatenate([rnd(rng, [6], dt, 0, 1), np.array([1, 0, 0.5, 1, 0, 1], dt)])
        yield Case(dt, "sigmoid_cross_entropy_with_logits(labels=$1, logits=$0)", [logits, labels],
                   lambda lo, la: tf().nn.sigmoid_cross_entropy_with_logits(labels=la, logits=lo),
                   grad=dt in DIFFERENTIABLE, tol=4.0)


@register("conv2d")
def conv2d(name):
    rng = rng_for(name)
    for dt in ["float32", "float64"]:
        for pad in ("VALID", "SAME"):
            for s, d in ((1, 1), (2, 1), (1, 2)):
                x, w = rnd(rng, [2, 6, 5, 3], dt), rnd(rng, [3, 2, 3, 4], dt)
                yield Case(f"{dt} {pad} stride {s} dilation {d}",
                           f'conv2d($0, $1, strides=[{s}, {s}], padding="{pad}", dilations=[{d}, {d}])', [x, w],
                           lambda x, w, s=s, d=d, p=pad: tf().nn.conv2d(x, w, [1, s, s, 1], p, dilations=[1, d, d, 1]),
                           grad=d == 1, tol=8.0)  # TensorFlow's CPU has no dilated conv gradient


@register("max_pool", "avg_pool")
def pool(name):
    rng = rng_for(name)
    f = tf().nn.max_pool2d if name == "max_pool" else tf().nn.avg_pool2d
    for dt in FLOATS:
        for pad in ("VALID", "SAME"):
            for k, s in ((2, 2), (3, 1), (3, 2)):
                yield Case(f"{dt} {pad} k {k} s {s}", f'{name}($0, [{k}, {k}], [{s}, {s}], padding="{pad}")',
                           [rnd(rng, [2, 5, 6, 3], dt)], lambda x, k=k, s=s, p=pad: f(x, k, s, p),
                           grad=dt in DIFFERENTIABLE, tol=4.0)


@register("top_k")
def top_k(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        x = rnd(rng, [3, 5], dt, -10, 10)
        for k in (1, 3, 5):
            yield Case(f"{dt} k {k}", f"top_k($0, k={k})", [x], lambda x, k=k: list(tf().math.top_k(x, k=k)),
                       grad=dt in DIFFERENTIABLE)
        yield Case(f"{dt} ties", "top_k($0, k=2)", [np.array([[1, 3, 3, 1], [2, 2, 2, 2]], dt)],
                   lambda x: list(tf().math.top_k(x, k=2)))


# ---- array --------------------------------------------------------------

ALL = NUMBERS + ["bool"]


@register("transpose")
def transpose(name):
    rng = rng_for(name)
    for dt in ALL:
        x = rnd(rng, [2, 3, 4], dt)
        for perm in ([2, 0, 1], [0, 2, 1], [0, 1, 2]):
            yield Case(f"{dt} perm {perm}", f"transpose($0, {perm})", [x], lambda x, p=perm: tf().transpose(x, p),
                       grad=dt in DIFFERENTIABLE)


@register("tile")
def tile(name):
    rng = rng_for(name)
    for dt in ALL:
        for m in ([2, 1], [1, 3], [0, 2]):
            yield Case(f"{dt} {m}", f"tile($0, {m})", [rnd(rng, [2, 3], dt)], lambda x, m=m: tf().tile(x, m),
                       grad=dt in DIFFERENTIABLE)


@register("reshape")
def reshape(name):
    rng = rng_for(name)
    for dt in ALL:
        for s in ([3, 4], [-1], [2, -1, 3], [12, 1]):
            yield Case(f"{dt} {s}", f"reshape($0, {s})", [rnd(rng, [2, 6], dt)], lambda x, s=s: tf().reshape(x, s),
                       grad=dt in DIFFERENTIABLE)


@register("concat", "stack")
def concat(name):
    rng = rng_for(name)
    f = tf().concat if name == "concat" else tf().stack
    for dt in ALL:
        for axis in (0, 1, -1):
            a, b = rnd(rng, [2, 3], dt), rnd(rng, [2, 3], dt)
            yield Case(f"{dt} axis {axis}", f"{name}([$0, $1], axis={axis})", [a, b],
                       lambda a, b, ax=axis: f([a, b], axis=ax), grad=dt in DIFFERENTIABLE)


@register("gather")
def gather(name):
    rng = rng_for(name)
    for dt in ALL:
        for it in INTS:
            p = rnd(rng, [4, 3], dt)
            for axis, idx in ((0, [[3, 0], [1, 1]]), (1, [2, 0, 2])):
                yield Case(f"{dt} {it} axis {axis}", f"gather($0, #1, axis={axis})", [p, np.array(idx, it)],
                           lambda p, i, a=axis: tf().gather(p, i, axis=a), grad=dt in DIFFERENTIABLE)


@register("one_hot")
def one_hot(name):
    idx = np.array([0, 2, -1, 5, 1], "int32")
    for dt in ALL:
        tdt = dt.replace("float", "f").replace("int", "i")
        on, off = ("true", "false") if dt == "bool" else ("5", "-1")
        pon, poff = (True, False) if dt == "bool" else (5, -1)
        for axis in (-1, 0):
            yield Case(f"{dt} axis {axis}", f"one_hot(#0, 3, on_value={on}, off_value={off}, axis={axis}, dtype={tdt})",
                       [idx], lambda i, a=axis, d=dt, n=pon, f=poff: tf().one_hot(i, 3, on_value=tf().constant(n, d),
                                                                               off_value=tf().constant(f, d), axis=a))


@register("pad")
def pad(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        for mode in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            x = rnd(rng, [3, 4], dt)
            yield Case(f"{dt} {mode}", f'pad($0, [[1, 2], [2, 1]], mode="{mode}")', [x],
                       lambda x, m=mode: tf().pad(x, [[1, 2], [2, 1]], mode=m), grad=dt in DIFFERENTIABLE)


@register("where")
def where(name):
    rng = rng_for(name)
    for dt in ALL:
        for sc, sx, sy in (([2, 3], [2, 3], [2, 3]), ([3], [2, 3], [2, 3]), ([2, 1], [1, 3], [])):
            c, x, y = rnd(rng, sc, "bool"), rnd(rng, sx, dt), rnd(rng, sy, dt)
            yield Case(f"{dt} {sc} {sx} {sy}", "where(#0, $1, $2)", [c, x, y], lambda c, x, y: tf().where(c, x, y),
                       grad=dt in DIFFERENTIABLE)


@register("squeeze", "expand_dims")
def squeeze(name):
    rng = rng_for(name)
    for dt in ALL:
        x = rnd(rng, [1, 3, 1], dt)
        for axis in ([0], [2], [-1]) if name == "squeeze" else (0, 2, -1):
            call = f"{name}($0, axis={axis})"
            f = ((lambda x, a=axis: tf().squeeze(x, a)) if name == "squeeze"
                 else (lambda x, a=axis: tf().expand_dims(x, a)))
            yield Case(f"{dt} axis {axis}", call, [x], f, grad=dt in DIFFERENTIABLE)


@register("add_n")
def add_n(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        xs = [rnd(rng, [2, 3], dt) for _ in range(3)]
        yield Case(dt, "add_n([$0, $1, $2])", xs, lambda a, b, c: tf().math.add_n([a, b, c]), grad=dt in DIFFERENTIABLE)


@register("moments")
def moments(name):
    rng = rng_for(name)
    for dt in ["float32", "float64"]:
        for axes in ([0], [0, 1]):
            yield Case(f"{dt} axes {axes}", f"moments($0, {axes})", [rnd(rng, [4, 3], dt)],
                       lambda x, a=axes: list(tf().nn.moments(x, a)), grad=True, tol=4.0)


@register("l2_normalize", "clip_by_norm")
def norms(name):
    rng = rng_for(name)
    for dt in ["float32", "float64"]:
        x = rnd(rng, [3, 4], dt)
        if name == "l2_normalize":
            yield Case(f"{dt} axis 1", "l2_normalize($0, axis=1)", [x], lambda x: tf().math.l2_normalize(x, axis=1),
                       grad=True, tol=4.0)
            yield Case(f"{dt} zeros", "l2_normalize($0, axis=1)", [np.zeros([2, 3], dt)],
                       lambda x: tf().math.l2_normalize(x, axis=1), grad=True)
        else:
            for c in (0.5, 100.0):
                yield Case(f"{dt} clip {c}", f"clip_by_norm($0, {c})", [x], lambda x, c=c: tf().clip_by_norm(x, c),
                           grad=True, tol=4.0)


@register("reverse")
def reverse(name):
    rng = rng_for(name)
    for dt in ALL:
        x = rnd(rng, [2, 3, 2], dt)
        for axes in ([0], [1, 2], [-1]):
            yield Case(f"{dt} axes {axes}", f"reverse($0, {axes})", [x], lambda x, a=axes: tf().reverse(x, a),
                       grad=dt in DIFFERENTIABLE)


# The generators of the other cases_*.py files register themselves on import
# (at the end: they use this file's names).
import cases_array  # noqa: E402,F401
import cases_math  # noqa: E402,F401
import cases_nn  # noqa: E402,F401
import cases_optimizer  # noqa: E402,F401
import cases_sequence  # noqa: E402,F401
import cases_stdlib  # noqa: E402,F401
import cases_string  # noqa: E402,F401
import cases_variable  # noqa: E402,F401
