#!/usr/bin/env python3
"""TensorFlow's peer of tests/bench/graph_def_import.tfg: parse a GraphDef
file and tf.compat.v1.import_graph_def it, timed the same way."""
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
t0 = time.perf_counter()
gd = v1.GraphDef()
with open(sys.argv[1], "rb") as f:
    gd.ParseFromString(f.read())
with tf.Graph().as_default():
    v1.import_graph_def(gd, name="")
print("import_graph_def_seconds", time.perf_counter() - t0)
