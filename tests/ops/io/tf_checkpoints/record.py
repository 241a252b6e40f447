#!/usr/bin/env python3
"""Records the TensorFlow checkpoints tfg's tests restore (run by hand when
the cases change; the project never needs TensorFlow at run time).

Writes, next to this file, with TensorFlow's own tf.compat.v1.train.Saver:
  mlp.index, mlp.data-00000-of-00001   an MLP's variables and a global step,
                                       plus f64/i32/i64/bool/string variables
  sharded-0000N-of-00002.*              the same kind of variables saved by a
                                       sharded Saver on two CPU devices
  partitioned.*                        a partitioned variable (saved as slices)
and expected/: each variable's value as .npy (np.save), the MLP's input
x.npy and TensorFlow's output logits.npy for it.
"""
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
EXPECTED = os.path.join(HERE, "expected")
os.makedirs(EXPECTED, exist_ok=True)


def save_expected(name, value):
    if value.dtype == object:  # TensorFlow's strings come back as bytes objects: NumPy's 'S' dtype
        value = value.astype(bytes)
    np.save(os.path.join(EXPECTED, name.replace("/", "__") + ".npy"), value)


def dense(x, units, scope):
    """tf.compat.v1.layers.dense's variables (Keras 3 dropped the layer)."""
    with tf.compat.v1.variable_scope(scope):
        kernel = tf.compat.v1.get_variable("kernel", [x.shape[1], units],
                                           initializer=tf.compat.v1.glorot_uniform_initializer())
        bias = tf.compat.v1.get_variable("bias", [units], initializer=tf.compat.v1.random_normal_initializer())
    return tf.matmul(x, kernel) + bias


def record_mlp():
    g = tf.Graph()
    with g.as_default():
        tf.compat.v1.set_random_seed(7)
        x = tf.compat.v1.placeholder(tf.float32, [None, 4], name="x")
        h = tf.nn.relu(dense(x, 5, "dense"))
        logits = dense(h, 3, "dense_1")
        step = tf.compat.v1.train.get_or_create_global_step()
        tf.compat.v1.Variable(np.array([[1.5, -2.25], [3.0, 1e-300]]), name="extra/f64")
        tf.compat.v1.Variable(np.array([-7, 0, 2147483647], np.int32), name="extra/i32")
        tf.compat.v1.Variable(np.array([-(2**40), 5], np.int64), name="extra/i64")
        tf.compat.v1.Variable(np.array([True, False, True]), name="extra/flags")
        tf.compat.v1.Variable(np.array([b"hello", b"", "t\u00e9nsor".encode()]), name="extra/words")
        tf.compat.v1.Variable(np.float32(0.5), name="extra/scalar")
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            sess.run(step.assign(42))
            saver.save(sess, os.path.join(HERE, "mlp"), write_meta_graph=False, write_state=False)
            for v in tf.compat.v1.global_variables():
                save_expected(v.op.name, sess.run(v))
            xs = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
            np.save(os.path.join(EXPECTED, "x.npy"), xs)
            np.save(os.path.join(EXPECTED, "logits.npy"), sess.run(logits, {x: xs}))


def record_sharded():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            tf.compat.v1.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="shard_a")
        with tf.device("/cpu:1"):
            tf.compat.v1.Variable(np.array([3, 1, 4], np.int64), name="shard_b")
        saver = tf.compat.v1.train.Saver(sharded=True)
        config = tf.compat.v1.ConfigProto(device_count={"CPU": 2})
        with tf.compat.v1.Session(graph=g, config=config) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(HERE, "sharded"), write_meta_graph=False, write_state=False)


def record_partitioned():
    g = tf.Graph()
    with g.as_default():
        tf.compat.v1.get_variable("part", [6, 2],
                                  initializer=tf.compat.v1.constant_initializer(1.5),
                                  partitioner=tf.compat.v1.fixed_size_partitioner(2))
        saver = tf.compat.v1.train.Saver()
        with tf.compat.v1.Session(graph=g) as sess:
            sess.run(tf.compat.v1.global_variables_initializer())
            saver.save(sess, os.path.join(HERE, "partitioned"), write_meta_graph=False, write_state=False)


if __name__ == "__main__":
    record_mlp()
    record_sharded()
    record_partitioned()
