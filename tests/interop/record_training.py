#!/usr/bin/env python3
"""Trains tfg's exported training graphs in TensorFlow and records the result.

1. Runs tests/interop/export_training.tfg with the built tfg: it writes the
   training models of tests/scripts/interop/lib/train_models.tfg (loss,
   gradients, optimizer updates, variables with their initializers) as
   GraphDefs tests/interop/data/train_<name>.pb.
2. Loads each into TensorFlow with tf.compat.v1.import_graph_def, runs its
   `init`, then STEPS training steps on one fixed batch, and records the
   batch (train_<name>_feed<k>.npy), the loss before each step
   (train_<name>_losses.npy) and the trained variables
   (train_<name>_var<k>.npy). tests/scripts/interop/export_training.tfg
   trains the same models in tfg and compares, so CI needs no TensorFlow.

  python3 tests/interop/record_training.py [TFG [NAME...]]
      (default build/tfg and every model; needs TensorFlow)

Naming models re-records only those (protobuf writes attr maps in no fixed
order, so a re-export of an unchanged model may differ byte-wise). The
first five models draw their batches from one shared generator, in order;
later ones each from their own, so they can be recorded alone.
"""
import collections
import os
import pathlib
import subprocess
import sys
import tempfile
import zlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
ROOT = pathlib.Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "interop" / "data"
STEPS = 6
rng = np.random.default_rng(11)


def feeds_for(name):
    """One batch per model, in the order of its feeds."""
    if name == "mlp":
        return [rng.standard_normal((8, 6)).astype(np.float32), rng.integers(0, 3, 8).astype(np.int32)]
    if name == "xent":
        labels = rng.random((4, 2, 3)).astype(np.float32)
        return [rng.standard_normal((4, 2, 4)).astype(np.float32), labels / labels.sum(-1, keepdims=True)]
    if name == "lstm":
        return [rng.standard_normal((3, 2, 3)).astype(np.float32), rng.standard_normal((3, 4)).astype(np.float32) * 0.5]
    if name == "embed":
        return [np.array([0, 3, 3, 1, 4, 2], np.int32), np.array([0, 2, -1, 1, 2, 0], np.int32),
                rng.standard_normal((3, 4)).astype(np.float32)]
    if name == "cnn":
        return [rng.standard_normal((4, 6, 6, 2)).astype(np.float32), rng.integers(0, 3, 4).astype(np.int32)]
    own = np.random.default_rng(zlib.crc32(name.encode()))
    if name == "reduce":
        return [own.standard_normal((4, 3, 4)).astype(np.float32), own.random((4, 4)).astype(np.float32)]
    if name == "padgather":
        return [np.array([[1, 4], [5, 1]], np.int32), own.standard_normal((5, 3)).astype(np.float32),
                own.standard_normal((5, 13)).astype(np.float32)]
    if name == "sparse":
        return [np.array([4, 1, 4, 0, 2], np.int32), own.standard_normal((5, 2)).astype(np.float32)]
    raise ValueError(name)


def train_in_tf(name, spec, exported):
    pb = (exported / f"train_{name}.pb").read_bytes()
    (DATA / f"train_{name}.pb").write_bytes(pb)
    gd = v1.GraphDef()
    gd.ParseFromString(pb)
    g = tf.Graph()
    with g.as_default():
        v1.import_graph_def(gd, name="")
        with v1.Session(graph=g) as s:
            s.run("init")
            xs = feeds_for(name)
            feed = dict(zip(spec["feed"], xs))
            losses = []
            for _ in range(STEPS):
                # Loss and update in separate runs: in one, an update may race a read of the loss.
                losses.append(s.run(spec["loss"][0], feed))
                s.run(spec["train"][0], feed)
            losses.append(s.run(spec["loss"][0], feed))
            values = s.run(spec["var"])
    for k, x in enumerate(xs):
        np.save(DATA / f"train_{name}_feed{k}.npy", x)
    np.save(DATA / f"train_{name}_losses.npy", np.array(losses, np.float32))
    for k, v in enumerate(values):
        np.save(DATA / f"train_{name}_var{k}.npy", v)
    ops = collections.Counter(n.op for n in gd.node)
    print(f"train_{name}.pb: {len(gd.node)} nodes, TensorFlow trained {STEPS} steps, losses {losses[0]:.6f} -> "
          f"{losses[-1]:.6f}; ops {sorted(ops)}")


def main():
    tfg = sys.argv[1] if len(sys.argv) > 1 else str(ROOT / "build" / "tfg")
    only = set(sys.argv[2:])
    with tempfile.TemporaryDirectory() as tmp:
        exported = pathlib.Path(tmp)
        out = subprocess.run([tfg, str(ROOT / "tests/interop/export_training.tfg"), str(exported)], check=True,
                             capture_output=True, text=True).stdout
        specs = collections.defaultdict(lambda: collections.defaultdict(list))
        for line in out.splitlines():
            name, kind, tensor = line.split()
            specs[name][kind].append(tensor)
        for name, spec in specs.items():
            if not only or name in only:
                train_in_tf(name, spec, exported)


if __name__ == "__main__":
    main()
