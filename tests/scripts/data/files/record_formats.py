#!/usr/bin/env python3
"""Records the NumPy archives, string .npy files and tf.train.Example records
the format tests read (run by hand when the cases change; the project never
needs NumPy or TensorFlow at run time). Prints what TensorFlow parses from
the Example records, which the tests expect literally.
"""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def record_numpy():
    w = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    steps = np.array([3, -1], dtype=np.int64)
    words = np.array(["cat", "", "na\u00efve"])  # '<U5'
    np.savez(os.path.join(HERE, "arrays.npz"), w=w, steps=steps, words=words)
    np.savez_compressed(os.path.join(HERE, "arrays_deflated.npz"), w=w, steps=steps, words=words)
    np.save(os.path.join(HERE, "words_unicode.npy"), words)
    np.save(os.path.join(HERE, "words_bytes.npy"), np.array([b"ab", b"", b"\xffz"]))  # '|S2'
    np.save(os.path.join(HERE, "words_big_endian.npy"), np.array([["x", "yz"], ["\u00e9", "w"]], dtype=">U2"))
    np.save(os.path.join(HERE, "words_fortran.npy"), np.asfortranarray(np.array([["a", "b", "c"], ["d", "e", "f"]])))


def record_examples():
    import tensorflow as tf

    def feature(v):
        if isinstance(v[0], bytes):
            return tf.train.Feature(bytes_list=tf.train.BytesList(value=v))
        if isinstance(v[0], float):
            return tf.train.Feature(float_list=tf.train.FloatList(value=v))
        return tf.train.Feature(int64_list=tf.train.Int64List(value=v))

    records = [
        {"label": [3], "pixels": [0.5, -1.25], "name": [b"first"], "tags": [7, 8, 9]},
        {"label": [-4], "pixels": [2.0, 0.0], "tags": [1]},  # no name: its default
        {"label": [2**40], "pixels": [1e-3, 3.5], "name": [b"th\xc3\xafrd"], "tags": []},
    ]
    path = os.path.join(HERE, "tf", "examples.tfrecord")
    serialized = []
    with tf.io.TFRecordWriter(path) as w:
        for r in records:
            ex = tf.train.Example(features=tf.train.Features(feature={k: feature(v) if v else
                                                                      tf.train.Feature(int64_list=tf.train.Int64List())
                                                                      for k, v in r.items()}))
            w.write(ex.SerializeToString())
            serialized.append(ex.SerializeToString())
    spec = {
        "label": tf.io.FixedLenFeature([], tf.int64),
        "pixels": tf.io.FixedLenFeature([2], tf.float32),
        "name": tf.io.FixedLenFeature([], tf.string, default_value="none"),
        "tags": tf.io.VarLenFeature(tf.int64),
    }
    parsed = tf.io.parse_example(serialized, spec)
    for k in sorted(parsed):
        v = parsed[k]
        if isinstance(v, tf.SparseTensor):
            print(k, "dense:", tf.sparse.to_dense(v).numpy().tolist(), "shape", v.dense_shape.numpy().tolist())
        else:
            print(k, v.numpy().tolist())
    single = tf.io.parse_single_example(serialized[0], spec)
    print("single tags", tf.sparse.to_dense(single["tags"]).numpy().tolist(), "pixels", single["pixels"].numpy().tolist())


if __name__ == "__main__":
    record_numpy()
    record_examples()
