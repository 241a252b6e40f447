"""The peers of tests/bench/large_tensors.sh: the three jobs of
large_tensors.tfg in NumPy, TensorFlow (tf.function) and TensorFlow with XLA
(tf.function(jit_compile=True)), each fed host arrays and returning host
arrays, timed as the best of REPS calls after 3 warm-up calls. Prints
"<system> <job> <Gelem/s>" lines; TensorFlow's are skipped when it is not
installed.
Usage: python3 large_tensors.py N REPS THREADS"""
import os
import sys
import time

import numpy as np

n, reps, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rng = np.random.default_rng(1)
xs = rng.random(n, dtype=np.float32)
a_s = rng.random(n, dtype=np.float32)
bs = rng.random(n, dtype=np.float32)


def best_seconds(fn):
    for _ in range(3):
        fn()
    best = 1e9
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def chain(x):
    y = ((x * 1.5 + 0.25) * x - 0.5) * 0.75 + x
    return y * y + 1


def report(system, jobs):
    for job, fn in jobs:
        print(system, job, "%.4f" % (n / best_seconds(fn) / 1e9), flush=True)


one_and_half, quarter, half, three_quarters, one = (np.float32(v) for v in (1.5, 0.25, 0.5, 0.75, 1))


def np_chain(x):
    y = ((x * one_and_half + quarter) * x - half) * three_quarters + x
    return y * y + one


report("numpy", [("chain", lambda: np_chain(xs)), ("add", lambda: a_s + bs), ("sum", lambda: np_chain(xs).sum())])

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
try:
    import tensorflow as tf
except ImportError:
    sys.exit(0)
tf.config.threading.set_inter_op_parallelism_threads(threads)
tf.config.threading.set_intra_op_parallelism_threads(threads)

for system, jit in (("tensorflow", False), ("tensorflow-xla", True)):
    f_chain = tf.function(chain, jit_compile=jit)
    f_add = tf.function(lambda a, b: a + b, jit_compile=jit)
    f_sum = tf.function(lambda x: tf.reduce_sum(chain(x)), jit_compile=jit)
    report(system, [("chain", lambda: f_chain(xs).numpy()), ("add", lambda: f_add(a_s, bs).numpy()),
                    ("sum", lambda: f_sum(xs).numpy())])
