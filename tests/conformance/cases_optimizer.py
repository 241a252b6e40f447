"""Case generators of the optimizer updates (apply_* and sparse_apply_*):
the variable and its slots are the first inputs (@0, @1, ...); TensorFlow's
raw ResourceApply* ops update the same values, and both sides' variables are
read back afterwards (the ops have no outputs). Sparse gradients with
repeated indices are summed first, as TensorFlow 1's optimizers do
(_deduplicate_indexed_slices) before calling the op. Imported by cases.py."""
import numpy as np

from cases import FLOATS, Case, register, rnd, rng_for, tf


def on_variables(n, update):
    """A TensorFlow function of (n initial values, *args) that runs update on
    the n variables' handles and returns the variables read afterwards."""
    def run(*args):
        vs = [tf().Variable(a) for a in args[:n]]
        update(*[v.handle for v in vs], *args[n:])
        return [v.read_value() for v in vs]
    return run


def deduplicated(grad, indices):
    t = tf()
    unique, pos = t.unique(indices)
    return t.math.unsorted_segment_sum(grad, pos, t.shape(unique)[0]), unique


def scalar(x, dt):
    return np.array(x, dt)


@register("apply_gradient_descent", "apply_momentum", "apply_adagrad", "apply_adam", "apply_rmsprop")
def apply_dense(name):
    rng = rng_for(name)
    raw = tf().raw_ops
    for dt in FLOATS:
        tol = 8.0
        var, grad = rnd(rng, [2, 3], dt), rnd(rng, [2, 3], dt)
        slot = rnd(rng, [2, 3], dt, 0.1, 1.0)
        lr = scalar(0.1, dt)
        if name == "apply_gradient_descent":
            yield Case(dt, f"{name}(@0, $1, $2)", [var, lr, grad],
                       on_variables(1, lambda v, a, g: raw.ResourceApplyGradientDescent(var=v, alpha=a, delta=g)),
                       tol=tol)
        elif name == "apply_momentum":
            for nesterov in (False, True):
                yield Case(f"{dt} nesterov {nesterov}",
                           f"{name}(@0, @1, $2, $3, $4, use_nesterov={str(nesterov).lower()})",
                           [var, slot, lr, grad, scalar(0.9, dt)],
                           on_variables(2, lambda v, a, lr, g, m, n=nesterov: raw.ResourceApplyMomentum(
                               var=v, accum=a, lr=lr, grad=g, momentum=m, use_nesterov=n)), tol=tol)
        elif name == "apply_adagrad":
            for slots in (True, False):
                yield Case(f"{dt} update_slots {slots}", f"{name}(@0, @1, $2, $3, update_slots={str(slots).lower()})",
                           [var, slot, lr, grad],
                           on_variables(2, lambda v, a, lr, g, s=slots: raw.ResourceApplyAdagrad(
                               var=v, accum=a, lr=lr, grad=g, update_slots=s)), tol=tol)
        elif name == "apply_adam":
            for nesterov in (False, True):
                args = [scalar(0.9 ** 3, dt), scalar(0.999 ** 3, dt), lr, scalar(0.9, dt), scalar(0.999, dt),
                        scalar(1e-3, dt), grad]
                yield Case(f"{dt} nesterov {nesterov}",
                           f"{name}(@0, @1, @2, $3, $4, $5, $6, $7, $8, $9, use_nesterov={str(nesterov).lower()})",
                           [var, slot, slot * slot] + args,
                           on_variables(3, lambda v, m, s, b1p, b2p, lr, b1, b2, e, g, n=nesterov:
                                        raw.ResourceApplyAdam(var=v, m=m, v=s, beta1_power=b1p, beta2_power=b2p,
                                                              lr=lr, beta1=b1, beta2=b2, epsilon=e, grad=g,
                                                              use_nesterov=n)), tol=tol)
        else:
            yield Case(dt, f"{name}(@0, @1, @2, $3, $4, $5, $6, $7)",
                       [var, slot, slot * 0.5, lr, scalar(0.9, dt), scalar(0.5, dt), scalar(1e-3, dt), grad],
                       on_variables(3, lambda v, ms, mom, lr, rho, m, e, g: raw.ResourceApplyRMSProp(
                           var=v, ms=ms, mom=mom, lr=lr, rho=rho, momentum=m, epsilon=e, grad=g)), tol=tol)


@register("sparse_apply_gradient_descent", "sparse_apply_momentum", "sparse_apply_adagrad")
def apply_sparse(name):
    rng = rng_for(name)
    raw = tf().raw_ops
    for dt in FLOATS:
        for idx in ([2, 0], [3, 0, 3]):
            ids = np.array(idx, "int32")
            var, grad = rnd(rng, [4, 2], dt), rnd(rng, [len(idx), 2], dt)
            slot, lr = rnd(rng, [4, 2], dt, 0.1, 1.0), scalar(0.1, dt)
            label = f"{dt} indices {idx}"
            if name == "sparse_apply_gradient_descent":
                # TensorFlow 1's GradientDescentOptimizer: a scatter_sub of lr * grad
                yield Case(label, f"{name}(@0, $1, $2, #3)", [var, lr, grad, ids],
                           on_variables(1, lambda v, a, g, i: raw.ResourceScatterSub(resource=v, indices=i,
                                                                                       updates=a * g)), tol=4.0)
            elif name == "sparse_apply_momentum":
                yield Case(label, f"{name}(@0, @1, $2, $3, #4, $5)", [var, slot, lr, grad, ids, scalar(0.9, dt)],
                           on_variables(2, lambda v, a, lr, g, i, m: raw.ResourceSparseApplyMomentum(
                               var=v, accum=a, lr=lr, grad=deduplicated(g, i)[0], indices=deduplicated(g, i)[1],
                               momentum=m)), tol=8.0)
            else:
                yield Case(label, f"{name}(@0, @1, $2, $3, #4)", [var, slot, lr, grad, ids],
                           on_variables(2, lambda v, a, lr, g, i: raw.ResourceSparseApplyAdagrad(
                               var=v, accum=a, lr=lr, grad=deduplicated(g, i)[0], indices=deduplicated(g, i)[1])),
                           tol=8.0)
