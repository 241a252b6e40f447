#!/usr/bin/env python3
"""Records a TensorFlow checkpoint of partitioned variables for tfg's restore test.

tf.compat.v1 variables made with a partitioner are saved as slices: the
index has the full variable with its slice list and one entry per slice
under a binary key. This writes tests/interop/data/partitioned.{index,
data-00000-of-00001} with
  emb         f32 [7, 3]   in 3 row slices (fixed_size_partitioner(3))
  scope/cols  f64 [2, 5]   in 2 column slices (axis 1)
  big         f32 [130, 2] in 2 row slices (offset 65: a two-byte key number)
  plain       i32 [3]      not partitioned
whose values tests/scripts/interop/restore_partitioned.tfg computes itself.

  python3 tests/interop/record_partitioned.py   (needs TensorFlow 2.x)
"""
import os
import pathlib
import shutil
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
v1.disable_eager_execution()
DATA = pathlib.Path(__file__).resolve().parent / "data"
VALUES = {
    "emb": np.arange(21, dtype=np.float32).reshape(7, 3) * 0.25 - 1,
    "scope/cols": np.arange(10, dtype=np.float64).reshape(2, 5) * 0.5,
    "big": np.arange(260, dtype=np.float32).reshape(130, 2) * 0.5,
}


def main():
    g = tf.Graph()
    with g.as_default():
        parts = {
            "emb": v1.fixed_size_partitioner(3),
            "scope/cols": v1.fixed_size_partitioner(2, axis=1),
            "big": v1.fixed_size_partitioner(2),
        }
        made = {name: v1.get_variable(name, shape=VALUES[name].shape, dtype=VALUES[name].dtype,
                                      initializer=v1.zeros_initializer(), partitioner=parts[name])
                for name in VALUES}
        v1.get_variable("plain", initializer=np.array([1, 2, 3], np.int32))
        with v1.Session() as s:
            s.run(v1.global_variables_initializer())
            for name, pv in made.items():
                for p in pv:
                    info = p._save_slice_info
                    idx = tuple(slice(o, o + n) for o, n in zip(info.var_offset, info.var_shape))
                    s.run(p.assign(VALUES[name][idx]))
            with tempfile.TemporaryDirectory() as tmp:
                v1.train.Saver().save(s, f"{tmp}/model", write_meta_graph=False)
                for suffix in (".index", ".data-00000-of-00001"):
                    shutil.copy(f"{tmp}/model{suffix}", DATA / f"partitioned{suffix}")
    reader = tf.train.load_checkpoint(str(DATA / "partitioned"))
    for name, want in VALUES.items():
        assert np.array_equal(reader.get_tensor(name), want), name
    print("partitioned:", reader.get_variable_to_shape_map())


if __name__ == "__main__":
    main()
