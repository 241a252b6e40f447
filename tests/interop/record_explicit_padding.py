#!/usr/bin/env python3
"""Records a TensorFlow graph with padding="EXPLICIT" for tfg's import test.

conv_explicit.pb: Conv2D (stride 2, explicit_paddings) + Relu + MaxPool
(explicit_paddings), NHWC, with an input and TensorFlow's output as
tests/interop/data/conv_explicit_{x,out}.npy. conv_explicit_nchw.pb is
the same graph written with data_format NCHW (TensorFlow runs NCHW
convolutions on GPUs only, so its output is the NHWC one, transposed).
tests/scripts/interop/import_explicit_padding.tfg imports both and compares.

  python3 tests/interop/record_explicit_padding.py   (needs TensorFlow 2.x)
"""
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
v1.disable_eager_execution()
DATA = pathlib.Path(__file__).resolve().parent / "data"
rng = np.random.default_rng(31)
KERNEL = (rng.standard_normal((3, 3, 2, 3)) * 0.4).astype(np.float32)
CONV_PADS = [[0, 0], [1, 2], [2, 0], [0, 0]]   # NHWC: [before, after] per dimension
POOL_PADS = [[0, 0], [1, 1], [0, 1], [0, 0]]


def graph(nchw):
    g = tf.Graph()
    with g.as_default():
        if nchw:
            x = v1.placeholder(tf.float32, [None, 2, 7, 7], name="x")
            perm = [0, 3, 1, 2]
            y = tf.nn.conv2d(x, KERNEL, [1, 1, 2, 2], [CONV_PADS[i] for i in perm], data_format="NCHW")
            y = tf.nn.relu(y)
            y = tf.nn.max_pool2d(y, [1, 1, 3, 3], [1, 1, 2, 2], [POOL_PADS[i] for i in perm], data_format="NCHW")
        else:
            x = v1.placeholder(tf.float32, [None, 7, 7, 2], name="x")
            y = tf.nn.relu(tf.nn.conv2d(x, KERNEL, [1, 2, 2, 1], CONV_PADS))
            y = tf.nn.max_pool2d(y, [1, 3, 3, 1], [1, 2, 2, 1], POOL_PADS)
        tf.identity(y, name="out")
    return g


def main():
    xs = rng.standard_normal((2, 7, 7, 2)).astype(np.float32)
    g = graph(False)
    with v1.Session(graph=g) as s:
        out = s.run("out:0", {"x:0": xs})
    gd = g.as_graph_def()
    assert any(n.attr["padding"].s == b"EXPLICIT" for n in gd.node if n.op == "MaxPool")
    (DATA / "conv_explicit.pb").write_bytes(gd.SerializeToString())
    np.save(DATA / "conv_explicit_x.npy", xs)
    np.save(DATA / "conv_explicit_out.npy", out)
    (DATA / "conv_explicit_nchw.pb").write_bytes(graph(True).as_graph_def().SerializeToString())
    print("conv_explicit.pb, conv_explicit_nchw.pb: out", out.shape)


if __name__ == "__main__":
    main()
