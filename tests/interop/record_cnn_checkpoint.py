#!/usr/bin/env python3
"""The Fashion-MNIST CNN's weights between TensorFlow and tfg, both ways.

1. TensorFlow (tf.compat.v1) builds examples/fashion_mnist_cnn.tfg's model
   with the same variable names (conv1/kernel, ..., logits/bias), trains it
   one epoch on the first 6000 training images, saves a V2 checkpoint of the
   model's variables to tests/interop/data/cnn_tf.* and prints how many of
   the 10,000 test images it classifies right. That count is what
   tests/scripts/interop/restore_tf_cnn.tfg expects tfg to get from the
   checkpoint, on the same data (CI needs no TensorFlow).
2. With a tfg binary given, tfg trains the same model one epoch, saves it
   with save(..., format="tensorflow") and prints its own count; TensorFlow
   restores that checkpoint with tf.compat.v1.train.Saver and must count the
   same.

usage: record_cnn_checkpoint.py [TFG_BINARY]
"""

import gzip
import os
import subprocess
import sys
import tempfile

import numpy as np
import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "/usr/share/datasets/fashion-mnist/"


def load_idx(name):
    with gzip.open(DATA + name) as f:
        raw = f.read()
    dims = raw[3]
    shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
    return np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape)


def model(x):
    """examples/fashion_mnist_cnn.tfg's layers, under its variable names."""
    h = tf.reshape(x, [-1, 28, 28, 1])
    for name, filters in (("conv1", 32), ("conv2", 64)):
        cin = h.shape[-1]
        with tf.compat.v1.variable_scope(name):
            w = tf.compat.v1.get_variable("kernel", [3, 3, cin, filters], initializer=tf.compat.v1.keras.initializers.he_normal(seed=1))
            b = tf.compat.v1.get_variable("bias", [filters], initializer=tf.zeros_initializer())
        h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(h, w, [1, 1, 1, 1], "SAME"), b))
        h = tf.nn.max_pool2d(h, 2, 2, "VALID")
    h = tf.reshape(h, [-1, 7 * 7 * 64])
    for name, units, act in (("dense", 128, tf.nn.relu), ("logits", 10, None)):
        init = tf.compat.v1.keras.initializers.he_normal(seed=1) if act else tf.compat.v1.glorot_uniform_initializer()
        with tf.compat.v1.variable_scope(name):
            w = tf.compat.v1.get_variable("kernel", [h.shape[-1], units], initializer=init)
            b = tf.compat.v1.get_variable("bias", [units], initializer=tf.zeros_initializer())
        h = tf.nn.bias_add(tf.matmul(h, w), b)
        if act:
            h = act(h)
    return h


def graph():
    g = tf.Graph()
    with g.as_default():
        tf.compat.v1.set_random_seed(7)
        x = tf.compat.v1.placeholder(tf.float32, [None, 28, 28])
        y = tf.compat.v1.placeholder(tf.int32, [None])
        logits = model(x)
        weights = tf.compat.v1.global_variables()
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        train = tf.compat.v1.train.AdamOptimizer(0.001).minimize(loss)
        correct = tf.reduce_sum(tf.cast(tf.equal(tf.cast(tf.argmax(logits, 1), tf.int32), y), tf.int32))
        saver = tf.compat.v1.train.Saver(weights)
        init = tf.compat.v1.global_variables_initializer()
    return g, x, y, train, correct, saver, init


def count_right(sess, x, y, correct, test_x, test_y):
    return sum(int(sess.run(correct, {x: test_x[i:i + 1000], y: test_y[i:i + 1000]})) for i in range(0, 10000, 1000))


def main():
    train_x = load_idx("train-images-idx3-ubyte.gz")[:6000].astype(np.float32) / 255
    train_y = load_idx("train-labels-idx1-ubyte.gz")[:6000].astype(np.int32)
    test_x = load_idx("t10k-images-idx3-ubyte.gz").astype(np.float32) / 255
    test_y = load_idx("t10k-labels-idx1-ubyte.gz").astype(np.int32)

    g, x, y, train, correct, saver, init = graph()
    with tf.compat.v1.Session(graph=g) as sess:
        sess.run(init)
        order = np.random.RandomState(0).permutation(6000)
        for i in range(0, 6000, 64):
            idx = order[i:i + 64]
            sess.run(train, {x: train_x[idx], y: train_y[idx]})
        right = count_right(sess, x, y, correct, test_x, test_y)
        saver.save(sess, os.path.join(HERE, "data", "cnn_tf"), write_meta_graph=False, write_state=False)
    print(f"TensorFlow: {right} of 10000 right; saved tests/interop/data/cnn_tf")

    if len(sys.argv) < 2:
        return
    with tempfile.TemporaryDirectory() as tmp:
        prefix = os.path.join(tmp, "cnn_tfg")
        out = subprocess.run([sys.argv[1], "--seed", "3", os.path.join(HERE, "train_cnn_save.tfg"), prefix],
                             check=True, capture_output=True, text=True).stdout
        tfg_right = int(out.split()[-1])
        g, x, y, train, correct, saver, init = graph()
        with tf.compat.v1.Session(graph=g) as sess:
            saver.restore(sess, prefix)
            tf_right = count_right(sess, x, y, correct, test_x, test_y)
    print(f"tfg trained: tfg counts {tfg_right} right, TensorFlow from tfg's checkpoint {tf_right}")
    sys.exit(0 if tfg_right == tf_right else 1)


if __name__ == "__main__":
    main()
