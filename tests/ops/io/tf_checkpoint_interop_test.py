#!/usr/bin/env python3
"""tfg's TensorFlow checkpoints, read by TensorFlow itself.

tfg saves variables of every dtype with save(..., format="tensorflow"); the
test then
  1. restores them in tfg (the written bytes parse with tfg's reader) and
     checks the values, always;
  2. when TensorFlow is importable, reads the checkpoint with
     tf.train.load_checkpoint and restores it with
     tf.compat.v1.train.Saver, and compares with the values the script set.
     Without TensorFlow, part 2 is reported as skipped (CTest shows the
     test's output with --output-on-failure or -V).

usage: tf_checkpoint_interop_test.py TFG_BINARY
"""

import os
import subprocess
import sys
import tempfile
import unittest

TFG = None

SCRIPT = """
w = variable([[1.5, -2.0, 3.25], [0.0, 4.0, -0.5]], name="dense/kernel")
b = variable([0.25, 0.5, -1.0], name="dense/bias")
step = variable(12345678901, dtype=i64, name="global_step")
i = variable([-7, 2147483647], name="ints")
d = variable([[1e-300]], dtype=f64, name="doubles")
flags = variable([true, false, true], name="flags")
words = variable(["tensor", "", "fl\u00fcss"], name="words")
h = variable([0.5, 65504.0], dtype=f16, name="halves")
init()
save(argv[0], format="tensorflow")
run([assign(w, zeros([2, 3])), assign(step, 0), assign(words, ["", "", ""])])
restore(argv[0])
print(run(step), run(w)[0][2], run(words)[2])
"""

EXPECTED = {
    "dense/kernel": [[1.5, -2.0, 3.25], [0.0, 4.0, -0.5]],
    "dense/bias": [0.25, 0.5, -1.0],
    "global_step": 12345678901,
    "ints": [-7, 2147483647],
    "doubles": [[1e-300]],
    "flags": [True, False, True],
    "words": [b"tensor", b"", "fl\u00fcss".encode()],
    "halves": [0.5, 65504.0],
}


class TfCheckpointInterop(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        script = os.path.join(cls.tmp.name, "save.tfg")
        with open(script, "w", encoding="utf-8") as f:
            f.write(SCRIPT)
        cls.prefix = os.path.join(cls.tmp.name, "ckpt", "model")
        cls.result = subprocess.run([TFG, script, cls.prefix], capture_output=True, text=True, timeout=120,
                                    env=dict(os.environ, TFG_HISTORY=""))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_tfg_writes_and_reads_back(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        self.assertEqual(self.result.stdout.strip(), "12345678901 3.25 fl\u00fcss")
        self.assertTrue(os.path.exists(self.prefix + ".index"))
        self.assertTrue(os.path.exists(self.prefix + ".data-00000-of-00001"))

    def test_tensorflow_reads_it(self):
        self.assertEqual(self.result.returncode, 0, self.result.stderr)
        try:
            import numpy as np
            import tensorflow as tf
        except ImportError:
            print("SKIPPED: TensorFlow is not installed; tfg's own reader checked the checkpoint")
            self.skipTest("TensorFlow is not installed")
        reader = tf.train.load_checkpoint(self.prefix)
        shapes = reader.get_variable_to_shape_map()
        self.assertEqual(sorted(shapes), sorted(EXPECTED))
        for name, want in EXPECTED.items():
            got = reader.get_tensor(name)
            if name == "words":
                self.assertEqual(list(got), want)
            else:
                np.testing.assert_array_equal(got, np.array(want, dtype=got.dtype), err_msg=name)
        self.assertEqual(reader.get_variable_to_dtype_map()["global_step"], tf.int64)
        self.assertEqual(reader.get_variable_to_dtype_map()["halves"], tf.float16)

        # A TF1 graph with variables of the same names restores them.
        g = tf.Graph()
        with g.as_default():
            kernel = tf.compat.v1.Variable(tf.zeros([2, 3]), name="dense/kernel")
            step = tf.compat.v1.Variable(tf.constant(0, tf.int64), name="global_step")
            words = tf.compat.v1.Variable(tf.constant(["", "", ""]), name="words")
            saver = tf.compat.v1.train.Saver([kernel, step, words])
            with tf.compat.v1.Session(graph=g) as sess:
                saver.restore(sess, self.prefix)
                np.testing.assert_array_equal(sess.run(kernel), np.array(EXPECTED["dense/kernel"], np.float32))
                self.assertEqual(sess.run(step), 12345678901)
                self.assertEqual(list(sess.run(words)), EXPECTED["words"])


if __name__ == "__main__":
    TFG = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
