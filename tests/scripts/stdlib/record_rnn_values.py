#!/usr/bin/env python3
"""Records TensorFlow's values for tests/scripts/stdlib/rnn_*.tfg.

Runs TensorFlow 1.x's cells (tf.compat.v1 graph mode, the rnn_cell_impl
classes TF 2.x still ships) on fixed weights and inputs and writes them, with
TF's outputs and gradients, as a tfg module: tests/scripts/stdlib/lib/rnn_tf_values.tfg.

    python3 tests/scripts/stdlib/record_rnn_values.py
"""
import os

import numpy as np
import tensorflow as tf
from tensorflow.python.ops import rnn as tf_rnn
from tensorflow.python.ops import rnn_cell_impl

tf.compat.v1.disable_eager_execution()
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib", "rnn_tf_values.tfg")
rng = np.random.RandomState(24)


def lit(a):
    return np.array2string(np.asarray(a, np.float64), separator=", ", precision=9, floatmode="maxprec",
                           threshold=1 << 30, max_line_width=1 << 30).replace("\n", "")


def run_case(make_cell, batch, time, depth, lengths=None, time_major=False):
    """dynamic_rnn of a fresh cell; returns (weights, x, outputs, final state leaves, d loss / d weights)."""
    g = tf.Graph()
    with g.as_default():
        shape = [time, batch, depth] if time_major else [batch, time, depth]
        x = tf.constant(rng.uniform(-1, 1, shape).astype(np.float64))
        cell = make_cell()
        if isinstance(cell, tuple):  # bidirectional: outputs concatenated on the last axis
            outs, state = tf_rnn.bidirectional_dynamic_rnn(cell[0], cell[1], x, sequence_length=lengths,
                                                           dtype=tf.float64, time_major=time_major)
            outs = tf.concat(outs, 2)
        else:
            outs, state = tf_rnn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float64,
                                             time_major=time_major)
        weights = tf.compat.v1.trainable_variables()
        probe = tf.constant(rng.uniform(-1, 1, outs.shape.as_list()))
        leaves = tf.nest.flatten(state)
        loss = tf.reduce_sum(outs * probe) + sum(tf.reduce_sum(s * s) for s in leaves)
        grads = tf.gradients(loss, weights)
        with tf.compat.v1.Session() as s:
            s.run(tf.compat.v1.global_variables_initializer())
            # Random weights of a larger scale than the initializers, so gates saturate less uniformly.
            for w in weights:
                w.load(rng.uniform(-0.8, 0.8, w.shape.as_list()), s)
            return (s.run(weights), s.run(x), s.run(probe), s.run(outs), s.run(leaves), s.run(grads),
                    [w.name for w in weights])


def emit(f, name, case):
    weights, x, probe, outs, leaves, grads, names = case
    f.write(f"# {name}: weights {names}\n")
    f.write(f"{name} = {{\n")
    f.write(f'  "weights": [{", ".join(lit(w) for w in weights)}],\n')
    f.write(f'  "x": {lit(x)},\n')
    f.write(f'  "probe": {lit(probe)},\n')
    f.write(f'  "outputs": {lit(outs)},\n')
    f.write(f'  "state": [{", ".join(lit(s) for s in leaves)}],\n')
    f.write(f'  "grads": [{", ".join(lit(g) for g in grads)}],\n')
    f.write("}\n\n")


def main():
    cases = {
        "lstm": run_case(lambda: rnn_cell_impl.LSTMCell(4, forget_bias=1.0), batch=3, time=4, depth=2,
                         lengths=[4, 1, 3]),
        "lstm_peephole_proj": run_case(lambda: rnn_cell_impl.LSTMCell(4, use_peepholes=True, num_proj=3,
                                                                      forget_bias=0.5), batch=2, time=3, depth=2),
        "gru": run_case(lambda: rnn_cell_impl.GRUCell(3), batch=2, time=3, depth=2, lengths=[2, 3]),
        "basic_time_major": run_case(lambda: rnn_cell_impl.BasicRNNCell(3), batch=2, time=3, depth=2,
                                     time_major=True),
        "multi": run_case(lambda: rnn_cell_impl.MultiRNNCell([rnn_cell_impl.LSTMCell(3), rnn_cell_impl.GRUCell(2)]),
                          batch=2, time=3, depth=2, lengths=[3, 2]),
        "bidirectional": run_case(lambda: (rnn_cell_impl.LSTMCell(3), rnn_cell_impl.GRUCell(2)), batch=3, time=4,
                                  depth=2, lengths=[4, 2, 3]),
    }
    with open(OUT, "w") as f:
        f.write("# TensorFlow " + tf.__version__ + " values for tests/scripts/stdlib/rnn_tf_values.tfg, written by\n")
        f.write("# tests/scripts/stdlib/record_rnn_values.py (do not edit). Each case: the weights in\n")
        f.write("# trainable_variables() order, inputs x, a probe, dynamic_rnn's outputs and final state\n")
        f.write("# leaves, and the gradients of sum(outputs * probe) + sum(leaf^2) by the weights.\n\n")
        for name, case in cases.items():
            emit(f, name, case)


if __name__ == "__main__":
    main()
