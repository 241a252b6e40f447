"""Case generators of the ops that update a variable (assign*, scatter_*):
each case's input 0 is the variable's initial value (@0 in the call), and
TensorFlow's function returns the op's value and then the variable's value
after it, as replay.py reads both back from tfg. Imported by cases.py."""
import numpy as np

from cases import ALL, NUMBERS, INTS, Case, register, rnd, rng_for, tf


def on_variable(update):
    """A TensorFlow function of (initial value, *args): [update's value, the
    variable read afterwards]."""
    def run(init, *args):
        v = tf().Variable(init)
        out = update(v, *args)
        return [tf().convert_to_tensor(out), v.read_value()]
    return run


@register("assign", "assign_add", "assign_sub")
def assign(name):
    rng = rng_for(name)
    method = {"assign": "assign", "assign_add": "assign_add", "assign_sub": "assign_sub"}[name]
    for dt in ALL if name == "assign" else NUMBERS:
        for shape in ([2, 3], []):
            yield Case(f"{dt} {list(shape)}", f"{name}(@0, $1)", [rnd(rng, shape, dt), rnd(rng, shape, dt)],
                       on_variable(lambda v, x, m=method: getattr(v, m)(x)))


SCATTER = {
    # tfg op: (TensorFlow function, index tuples (nd) or rows)
    "scatter_add": ("scatter_add", False), "scatter_sub": ("scatter_sub", False),
    "scatter_update": ("scatter_update", False), "scatter_nd_update": ("scatter_nd_update", True),
    "scatter_nd_add": ("scatter_nd_add", True), "scatter_nd_sub": ("scatter_nd_sub", True),
}


@register(*SCATTER)
def scatter(name):
    rng = rng_for(name)
    api, nd = SCATTER[name]
    f = on_variable(lambda v, i, u: getattr(tf().compat.v1, api)(v, i, u))
    # scatter_update's repeated index is last-wins in tfg, unspecified in
    # TensorFlow: repeats only where every update applies.
    repeat = name not in ("scatter_update", "scatter_nd_update")
    for dt in NUMBERS:
        for it in INTS:
            init = rnd(rng, [4, 3], dt)
            if nd:
                idx = np.array([[0, 1], [3, 2], [0, 1]] if repeat else [[0, 1], [3, 2], [1, 1]], it)
                yield Case(f"{dt} {it} elements", f"{name}(@0, #1, $2)", [init, idx, rnd(rng, [3], dt)], f)
                idx = np.array([[2], [0]], it)
                yield Case(f"{dt} {it} rows", f"{name}(@0, #1, $2)", [init, idx, rnd(rng, [2, 3], dt)], f)
            else:
                idx = np.array([2, 0, 2] if repeat else [2, 0, 3], it)
                yield Case(f"{dt} {it} rows", f"{name}(@0, #1, $2)", [init, idx, rnd(rng, [3, 3], dt)], f)
                idx = np.array([[1, 3]], it)
                yield Case(f"{dt} {it} rank-2 indices", f"{name}(@0, #1, $2)",
                           [init, idx, rnd(rng, [1, 2, 3], dt)], f)
        idx = np.zeros([0, 1] if nd else [0], "int32")
        yield Case(f"{dt} no updates", f"{name}(@0, #1, $2)", [rnd(rng, [2, 2], dt), idx, rnd(rng, [0, 2], dt)], f)
