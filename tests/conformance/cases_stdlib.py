"""Case generators of stdlib functions a TensorFlow 1 user calls by name:
eye, linspace, global_norm, unstack, embedding_lookup, and the optimizers
(sgd, momentum, adam, rmsprop, adagrad), each run for a few steps of
minimize() on a variable (replay.py's _minimize_steps). Imported by cases.py."""
import numpy as np

import cases_sequence
from cases import ALL, DIFFERENTIABLE, INTS, NUMBERS, Case, register, rnd, rng_for, tf

TFG_DTYPE = {"float16": "f16", "float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64", "bool": "bool"}


@register("eye")
def eye(name):
    for dt in NUMBERS + ["bool"]:
        for rows, cols in ((3, None), (2, 4), (0, None)):
            call = f"eye({rows}{'' if cols is None else f', {cols}'}, dtype={TFG_DTYPE[dt]})"
            yield Case(f"{dt} {rows} {cols}", call, [], lambda r=rows, c=cols, d=dt: tf().eye(r, c, dtype=d))


@register("linspace")
def linspace(name):
    for start, stop, num in ((0.0, 1.0, 5), (-2.5, 3.0, 4), (1.0, 1.0, 3), (2.0, -1.0, 7), (3.0, 5.0, 1)):
        yield Case(f"{start} {stop} {num}", f"linspace({start}, {stop}, {num})", [],
                   lambda a=start, b=stop, n=num: tf().linspace(np.float32(a), np.float32(b), n))


@register("global_norm")
def global_norm(name):
    rng = rng_for(name)
    for dt in ("float32", "float64"):
        xs = [rnd(rng, [2, 3], dt), rnd(rng, [4], dt), rnd(rng, [], dt)]
        yield Case(dt, "global_norm([$0, $1, $2])", xs, lambda a, b, c: tf().linalg.global_norm([a, b, c]),
                   grad=True, tol=4.0)


@register("unstack")
def unstack(name):
    rng = rng_for(name)
    for dt in ALL:
        x = rnd(rng, [2, 3, 1], dt)
        for axis in (0, 1, -1):
            yield Case(f"{dt} axis {axis}", f"unstack($0, axis={axis})", [x],
                       lambda x, a=axis: tf().unstack(x, axis=a), grad=dt in DIFFERENTIABLE)


@register("embedding_lookup")
def embedding_lookup(name):
    rng = rng_for(name)
    for dt in NUMBERS:
        for it in INTS:
            ids = np.array([[3, 0], [3, 1]], it)
            yield Case(f"{dt} {it}", "embedding_lookup($0, #1)", [rnd(rng, [4, 3], dt), ids],
                       lambda p, i: tf().nn.embedding_lookup(p, i), grad=dt in DIFFERENTIABLE)
    yield from cases_sequence.sharded_embedding_cases(rng)


def v1(name, **kw):
    return lambda t: getattr(t.compat.v1.train, name)(**kw)


# (tfg optimizer call, TensorFlow 1 optimizer) per optimizer. TensorFlow 1's
# optimizers turn hyper-parameters into f32 tensors (and keep Adam's beta
# powers in f32 variables) before casting them to an f64 variable's dtype;
# tfg keeps them as doubles. The f64 cases use values f32 holds exactly,
# except "float64 rounded" which shows the difference
# (docs/tensorflow-differences.md).
OPTIMIZERS = {
    "sgd": {"float32": [("sgd(0.1)", v1("GradientDescentOptimizer", learning_rate=0.1))],
            "float64": [("sgd(0.125)", v1("GradientDescentOptimizer", learning_rate=0.125))]},
    "momentum": {
        "float32": [("momentum(0.1, 0.9)", v1("MomentumOptimizer", learning_rate=0.1, momentum=0.9)),
                    ("momentum(0.1, 0.9, nesterov=true)",
                     v1("MomentumOptimizer", learning_rate=0.1, momentum=0.9, use_nesterov=True))],
        "float64": [("momentum(0.125, 0.875)", v1("MomentumOptimizer", learning_rate=0.125, momentum=0.875)),
                    ("momentum(0.125, 0.875, nesterov=true)",
                     v1("MomentumOptimizer", learning_rate=0.125, momentum=0.875, use_nesterov=True))]},
    "adam": {
        "float32": [("adam(0.1)", v1("AdamOptimizer", learning_rate=0.1)),
                    ("adam(0.05, beta1=0.8, beta2=0.99, epsilon=1e-6)",
                     v1("AdamOptimizer", learning_rate=0.05, beta1=0.8, beta2=0.99, epsilon=1e-6))],
        "float64": [("adam(0.125, beta1=0.75, beta2=0.9921875, epsilon=0.0009765625)",
                     v1("AdamOptimizer", learning_rate=0.125, beta1=0.75, beta2=0.9921875, epsilon=2.0 ** -10))]},
    "rmsprop": {
        "float32": [("rmsprop(0.1)", v1("RMSPropOptimizer", learning_rate=0.1)),
                    ("rmsprop(0.05, rho=0.8, momentum=0.5)",
                     v1("RMSPropOptimizer", learning_rate=0.05, decay=0.8, momentum=0.5))],
        "float64": [("rmsprop(0.125, rho=0.875, momentum=0.5, epsilon=0.0009765625)",
                     v1("RMSPropOptimizer", learning_rate=0.125, decay=0.875, momentum=0.5, epsilon=2.0 ** -10))]},
    "adagrad": {
        "float32": [("adagrad(0.1)", v1("AdagradOptimizer", learning_rate=0.1)),
                    ("adagrad(0.1, initial_accumulator=0.5)",
                     v1("AdagradOptimizer", learning_rate=0.1, initial_accumulator_value=0.5))],
        "float64": [("adagrad(0.125, initial_accumulator=0.5)",
                     v1("AdagradOptimizer", learning_rate=0.125, initial_accumulator_value=0.5))]},
}
STEPS = 3


def minimized(make_opt):
    """TensorFlow: STEPS steps of minimize(sum(target * v^2) + sum(v)) on a
    variable started at the case's input 0; the variable after each step."""
    def run(init, target):
        t = tf()
        v = t.Variable(init)
        opt = make_opt(t)
        after = []
        for _ in range(STEPS):
            opt.minimize(lambda: t.reduce_sum(target * v * v) + t.reduce_sum(v), var_list=[v])
            after.append(v.read_value())
        return [t.stack(after), v.read_value()]
    return run


@register(*OPTIMIZERS)
def optimizer(name):
    rng = rng_for(name)
    for dt in ("float32", "float64"):
        init, target = rnd(rng, [2, 3], dt), rnd(rng, [2, 3], dt, 0.5, 2)
        for call, make in OPTIMIZERS[name][dt]:
            yield Case(f"{dt} {call}", f"_minimize_steps(@0, #1, {call}, {STEPS})", [init, target],
                       minimized(make), tol=64.0)
    if name == "sgd":
        yield Case("float64 rounded sgd(0.1)", f"_minimize_steps(@0, #1, sgd(0.1), {STEPS})", [init, target],
                   minimized(v1("GradientDescentOptimizer", learning_rate=0.1)), tol=64.0)
