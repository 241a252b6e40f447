#!/usr/bin/env python3
"""Checks tfg's GraphDef export in TensorFlow and records what TensorFlow computes.

1. Runs tests/interop/export_models.tfg with the built tfg: it writes the
   models of tests/scripts/interop/lib/export_models.tfg as GraphDefs
   (export_graph_def, variables with their initializers).
2. Loads each into TensorFlow with tf.compat.v1.import_graph_def, runs its
   `init` op, feeds an input and records input and output as
   tests/interop/data/export_<name>_{x,out}.npy (the .pb files are kept
   there too). tests/scripts/interop/export_models.tfg compares tfg's own
   run with them, so CI needs no TensorFlow.
3. Exports the whole graph of the examples in examples/ (training step
   included: gradients and optimizer updates) with `tfg export` and checks
   that TensorFlow imports it, runs its `init` (the variables'
   initializers) and the inference node. Their weights start random on
   both sides, so only the shapes compare; tests/interop/record_training.py
   checks training steps value by value.

  python3 tests/interop/record_exports.py [TFG]   (default build/tfg; needs TensorFlow)
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
DATA = ROOT / "tests" / "interop" / "data"
INPUTS = {"mlp": (4, 6), "cnn": (2, 8, 8, 2), "loop": (2, 3)}
rng = np.random.default_rng(7)


def run_in_tf(pb, feeds, fetch, init=True):
    g = tf.Graph()
    with g.as_default():
        gd = v1.GraphDef()
        gd.ParseFromString(pathlib.Path(pb).read_bytes())
        v1.import_graph_def(gd, name="")
        with v1.Session(graph=g) as s:
            if init and any(n.name == "init" for n in gd.node):
                s.run("init")
            return s.run(fetch, feeds)


def models(tfg):
    out = subprocess.run([tfg, str(ROOT / "tests/interop/export_models.tfg"), str(DATA)], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        name, x, y = line.split()
        xs = rng.standard_normal(INPUTS[name]).astype(np.float32)
        got = run_in_tf(DATA / f"export_{name}.pb", {x: xs}, y)
        np.save(DATA / f"export_{name}_x.npy", xs)
        np.save(DATA / f"export_{name}_out.npy", got)
        print(f"export_{name}.pb: TensorFlow ran it, output {got.shape}")


# The inference output of each example, run after importing its whole graph.
EXAMPLE_FETCHES = {"fashion_mnist_mlp": "logits/bias_add", "fashion_mnist_cnn": "logits/bias_add",
                   "linear_regression": "add"}


def examples(tfg):
    for stem, fetch in EXAMPLE_FETCHES.items():
        with tempfile.TemporaryDirectory() as tmp:
            pb = pathlib.Path(tmp) / "g.pb"
            r = subprocess.run([tfg, "export", str(ROOT / "examples" / f"{stem}.tfg"), "-o", str(pb)],
                               capture_output=True, text=True)
            if r.returncode != 0:
                print(f"{stem}.tfg: tfg export failed: {r.stderr.strip()}")
                continue
            gd = v1.GraphDef()
            gd.ParseFromString(pb.read_bytes())
            feeds = {}
            for n in gd.node:
                if n.op == "Placeholder":
                    dims = [max(d.size, 1) for d in n.attr["shape"].shape.dim]
                    feeds[n.name + ":0"] = np.zeros(dims, tf.as_dtype(n.attr["dtype"].type).as_numpy_dtype)
            out = run_in_tf(pb, feeds, fetch + ":0")
            print(f"{stem}.tfg: TensorFlow imported {len(gd.node)} nodes, ran init and {fetch}: {out.shape}")


if __name__ == "__main__":
    tfg = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "tfg")
    models(tfg)
    examples(tfg)
