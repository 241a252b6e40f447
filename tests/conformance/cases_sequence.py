"""Case generators of the sequence-model ops and stdlib functions:
reverse_sequence, sequence_mask, reduce_logsumexp, multinomial, the
candidate samplers, compute_accidental_hits, embedding_lookup over shards,
sampled_softmax_loss and nce_loss. Random ops are recorded only where the
draw is forced (one class with non-zero probability), or through their
deterministic outputs (expected counts without unique=true); the sampled
losses get their samples through sampled_values. Imported by cases.py."""
import numpy as np

from cases import ALL, DIFFERENTIABLE, FLOATS, INTS, Case, register, rnd, rng_for, tf


@register("reverse_sequence")
def reverse_sequence(name):
    rng = rng_for(name)
    for dt in ALL:
        for it in INTS:
            x = rnd(rng, [3, 4, 2], dt)
            for seq, batch, lengths in ((1, 0, [4, 0, 2]), (0, 1, [1, 3, 0, 2]), (2, 0, [2, 1, 0])):
                yield Case(f"{dt} {it} seq {seq} batch {batch}",
                           f"reverse_sequence($0, #1, seq_axis={seq}, batch_axis={batch})",
                           [x, np.array(lengths, it)],
                           lambda x, l, s=seq, b=batch: tf().reverse_sequence(x, l, seq_axis=s, batch_axis=b),
                           grad=dt in DIFFERENTIABLE)


@register("sequence_mask")
def sequence_mask(name):
    for it in INTS:
        lengths = np.array([[1, 3], [0, 2]], it)
        yield Case(f"{it} default maxlen", "sequence_mask(#0)", [lengths], lambda l: tf().sequence_mask(l))
        yield Case(f"{it} maxlen 5", "sequence_mask(#0, maxlen=5)", [lengths],
                   lambda l: tf().sequence_mask(l, maxlen=5))
        yield Case(f"{it} f32", "sequence_mask(#0, maxlen=4, dtype=f32)", [np.array([2, 0, 4], it)],
                   lambda l: tf().sequence_mask(l, maxlen=4, dtype="float32"))


@register("reduce_logsumexp")
def reduce_logsumexp(name):
    rng = rng_for(name)
    for dt in FLOATS:
        x = rnd(rng, [2, 3, 4], dt, -5, 5)
        for axis, keep in ((None, False), (1, False), (-1, True), ([0, 2], False)):
            call = f"reduce_logsumexp($0{'' if axis is None else f', axis={axis}'}, keepdims={str(keep).lower()})"
            yield Case(f"{dt} axis {axis} keepdims {keep}", call, [x],
                       lambda x, a=axis, k=keep: tf().math.reduce_logsumexp(x, axis=a, keepdims=k),
                       grad=dt in DIFFERENTIABLE, tol=4.0)
        big = np.array([[1000.0, 1000.0, -np.inf], [-np.inf, -np.inf, -np.inf]], dt)
        yield Case(f"{dt} large and -inf", "reduce_logsumexp($0, axis=1)", [big],
                   lambda x: tf().math.reduce_logsumexp(x, axis=1), tol=4.0)


@register("multinomial")
def multinomial(name):
    inf = np.inf
    for dt in ("float32", "float64"):
        # One class of non-zero probability per row: the draws are forced.
        logits = np.array([[0.0, -inf, -inf], [-inf, -inf, 5.0]], dt)
        for out in ("int32", "int64"):
            yield Case(f"{dt} forced {out}", f"multinomial(#0, num_samples=4, output_dtype={out[0]}{out[3:]})",
                       [logits], lambda l, o=out: tf().random.categorical(l, 4, dtype=o))


SAMPLERS = {"uniform_candidate_sampler": "uniform_candidate_sampler",
            "log_uniform_candidate_sampler": "log_uniform_candidate_sampler"}


@register(*SAMPLERS)
def candidate_sampler(name):
    true = np.array([[0, 3], [7, 1], [2, 9]], np.int64)
    tf_fn = lambda: getattr(tf().random, name)  # noqa: E731
    # Without unique, the expected counts of the true classes depend on no draw.
    yield Case("true_expected_count", f"{name}(#0, 2, 5, false, 10)[1]", [true],
               lambda t: tf_fn()(t, 2, 5, False, 10)[1], tol=4.0)
    # A range of one class: every draw is class 0.
    yield Case("range 1", f"{name}(#0, 2, 3, false, 1)", [np.zeros([2, 2], np.int64)],
               lambda t: list(tf_fn()(t, 2, 3, False, 1)), tol=4.0)
    yield Case("range 1 unique", f"{name}(#0, 1, 1, true, 1)", [np.zeros([3, 1], np.int64)],
               lambda t: list(tf_fn()(t, 1, 1, True, 1)), tol=4.0)


@register("compute_accidental_hits")
def compute_accidental_hits(name):
    true = np.array([[0, 3], [7, 1], [3, 3], [9, 9]], np.int64)
    sampled = np.array([3, 5, 7, 3, 1], np.int64)
    yield Case("hits", "compute_accidental_hits(#0, #1, 2)", [true, sampled],
               lambda t, s: list(tf().nn.compute_accidental_hits(t, s, 2)))
    yield Case("none", "compute_accidental_hits(#0, #1, 1)", [np.array([[4], [6]], np.int64), sampled],
               lambda t, s: list(tf().nn.compute_accidental_hits(t, s, 1)))


def sampled_inputs(rng, dt, classes=10, dim=3, batch=4, num_true=1):
    w = rnd(rng, [classes, dim], dt, -1, 1)
    b = rnd(rng, [classes], dt, -1, 1)
    labels = rng.integers(0, classes, [batch, num_true]).astype(np.int64)
    x = rnd(rng, [batch, dim], dt, -1, 1)
    sampled = np.array([labels[0, 0], 9, 2, 5, 0], np.int64)  # one accidental hit at least
    # TensorFlow subtracts their logs from logits of dtype dt.
    true_count = rng.uniform(0.1, 0.9, [batch, num_true]).astype(dt)
    sampled_count = rng.uniform(0.1, 0.9, [5]).astype(dt)
    return [w, b, labels, x, sampled, true_count, sampled_count]


@register("sampled_softmax_loss", "nce_loss")
def sampled_loss(name):
    rng = rng_for(name)
    tf_name = name
    for dt in DIFFERENTIABLE:
        for num_true in (1, 2):
            for hits in (True, False):
                ins = sampled_inputs(rng, dt, num_true=num_true)
                call = (f"{name}($0, $1, #2, $3, 5, 10, num_true={num_true}, sampled_values=[#4, #5, #6], "
                        f"remove_accidental_hits={str(hits).lower()})")
                yield Case(f"{dt} num_true {num_true} hits {hits}", call, ins,
                           lambda w, b, l, x, s, tc, sc, n=num_true, h=hits: getattr(tf().nn, tf_name)(
                               w, b, l, x, 5, 10, num_true=n, sampled_values=(s, tc, sc),
                               remove_accidental_hits=h),
                           grad=True, tol=8.0)
        # Weights in two shards ("div": rows 0-4 and 5-9).
        w, b, labels, x, s, tc, sc = sampled_inputs(rng, dt)
        call = (f"{name}([$0, $1], $2, #3, $4, 5, 10, sampled_values=[#5, #6, #7], partition_strategy=\"div\")")
        yield Case(f"{dt} sharded div", call, [w[:5], w[5:], b, labels, x, s, tc, sc],
                   lambda w0, w1, b, l, x, s, tc, sc: getattr(tf().compat.v1.nn, tf_name)(
                       [w0, w1], b, l, x, 5, 10, sampled_values=(s, tc, sc), partition_strategy="div"),
                   grad=True, tol=8.0)


def sharded_embedding_cases(rng):
    """embedding_lookup over a list of shards ("mod" and "div"), imported by
    cases_stdlib's embedding_lookup generator."""
    for dt in DIFFERENTIABLE:
        for strategy, sizes in (("mod", (4, 3)), ("div", (4, 3)), ("div", (3, 3, 3)), ("mod", (2, 2, 1))):
            total = sum(sizes)
            shards = [rnd(rng, [n, 2], dt) for n in sizes]
            ids = rng.integers(0, total, [2, 3]).astype(np.int64)
            args = ", ".join(f"${i}" for i in range(len(sizes)))
            call = f"embedding_lookup([{args}], #{len(sizes)}, partition_strategy=\"{strategy}\")"
            yield Case(f"{dt} {strategy} shards {list(sizes)}", call, shards + [ids],
                       lambda *a, s=strategy: tf().compat.v1.nn.embedding_lookup(list(a[:-1]), a[-1],
                                                                                   partition_strategy=s),
                       grad=True)

