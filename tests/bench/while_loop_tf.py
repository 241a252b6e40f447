"""scripts/bench: TensorFlow's tf.while_loop in graph mode (tf.function),
the same loop as tests/bench/while_loop.tfg: i += 1; s += i for N
iterations; prints the best of 3 runs in microseconds per iteration.
Usage: python3 while_loop_tf.py N THREADS"""
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import tensorflow as tf  # noqa: E402

n_iter = int(sys.argv[1])
threads = int(sys.argv[2])
tf.config.threading.set_inter_op_parallelism_threads(threads)
tf.config.threading.set_intra_op_parallelism_threads(threads)


@tf.function
def loop(n):
    zero = tf.constant(0, tf.int64)
    return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (zero, zero), parallel_iterations=10)[1]


loop(tf.constant(10, tf.int64))
best = 1e9
for _ in range(3):
    start = time.perf_counter()
    total = int(loop(tf.constant(n_iter, tf.int64)).numpy())
    best = min(best, time.perf_counter() - start)
assert total == n_iter * (n_iter - 1) // 2
print("tensorflow while_loop us/iter", best / n_iter * 1e6)
