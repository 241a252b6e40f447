#!/usr/bin/env python3
"""Checks that examples/word2vec.tfg exports and runs its input side in TensorFlow.

`tfg export` builds the script without running it, so the values word2vec
computes with run() while building (the subsampled corpus, its size) are
stand-ins and its training step is not comparable; what is checked is that
TensorFlow imports the whole graph (tf.compat.v1.import_graph_def), that
`init` runs, that the vocabulary lookup (HashTableV2 +
InitializeTableFromTextFileV2 + LookupTableFindV2) gives each token's line
in the vocabulary file, and that the integer random_uniforms
(RandomUniformInt) draw in [minval, maxval).

  python3 tests/interop/check_word2vec_export.py [TFG]   (default build/tfg; needs TensorFlow and WordNet)
"""
import os
import pathlib
import subprocess
import sys
import tempfile

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
ROOT = pathlib.Path(__file__).resolve().parents[2]
VOCAB = "/tmp/tfg_word2vec_vocab.txt"  # written by word2vec.tfg while it builds


def main():
    tfg = str(pathlib.Path(sys.argv[1]).resolve()) if len(sys.argv) > 1 else str(ROOT / "build" / "tfg")
    with tempfile.TemporaryDirectory() as tmp:
        pb = pathlib.Path(tmp) / "word2vec.pb"
        subprocess.run([tfg, "export", "word2vec.tfg", "-o", str(pb)], cwd=ROOT / "examples", check=True)
        gd = v1.GraphDef()
        gd.ParseFromString(pb.read_bytes())
    by_name = {n.name: n for n in gd.node}
    g = tf.Graph()
    with g.as_default():
        v1.import_graph_def(gd, name="")
        with v1.Session(graph=g, config=v1.ConfigProto(allow_soft_placement=True)) as s:
            s.run("init")
            keys = by_name["index_table_find"].input[1]
            tokens, ids = s.run([keys + ":0", "index_table_find:0"])
            vocab = {w: i for i, w in enumerate(open(VOCAB).read().split("\n")) if w}
            want = np.array([vocab.get(t.decode(), 0) for t in tokens])
            assert np.array_equal(ids, want), (ids, want)
            ints = [n for n in gd.node if n.op == "RandomUniformInt"]
            assert ints, "no RandomUniformInt in the export"
            for n in ints:
                lo, hi = (tf.make_ndarray(by_name[i].attr["value"].tensor) for i in n.input[1:3])
                if lo >= hi:
                    continue  # bounds computed from a stand-in corpus size
                v = s.run(n.name + ":0")
                assert v.min() >= lo and v.max() < hi, (n.name, lo, hi, v.min(), v.max())
    print(f"word2vec.pb: {len(gd.node)} nodes import into TensorFlow; lookup of {len(tokens)} tokens matches "
          f"the vocabulary; {len(ints)} RandomUniformInt in range")


if __name__ == "__main__":
    main()
