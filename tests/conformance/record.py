#!/usr/bin/env python3
"""Records TensorFlow's answers for tfg's conformance suite.

    python3 tests/conformance/record.py [--tfg build-asan/tfg] [--only op ...]

Needs TensorFlow 2.x (eager, one thread, oneDNN off); tfg itself never does.
For every row of ops/tf_op_map.tsv that names a TensorFlow API and has a case
generator in cases.py (or the cases_*.py files it imports), it runs each generated case through TensorFlow and
writes the inputs, TensorFlow's outputs and, for differentiable cases, the
gradients of sum(output * w) for random weights w, to
tests/conformance/data/<op>.npz. replay.py (a CTest test) runs the same
cases through tfg. It also writes tests/conformance/coverage.txt from the
table and the registry (`tfg doc ops`): which ops have cases, which do not
and why.
"""
import argparse
import json
import os
import subprocess
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cases as case_lib  # noqa: E402
import table as table_lib  # noqa: E402


def tf_module():
    import tensorflow as tf
    tf.config.threading.set_inter_op_parallelism_threads(1)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    return tf


def run_tf(tf, case):
    """TensorFlow's outputs and gradients for one case (None if TF refuses it)."""
    ts = [tf.constant(x) for x in case.inputs]
    wrt = case.wrt()
    try:
        with tf.GradientTape() as tape:
            for i in wrt:
                tape.watch(ts[i])
            out = case.tf(*ts)
            outs = list(out) if isinstance(out, (list, tuple)) else [out]
            weights = case.weights([o.numpy() for o in outs])
            loss = None
            for o, w in zip(outs, weights):
                if w is None:
                    continue
                term = tf.reduce_sum(o * tf.constant(w))
                loss = term if loss is None else loss + term
        grads = []
        if wrt and loss is not None:
            grads = tape.gradient(loss, [ts[i] for i in wrt],
                                  unconnected_gradients=tf.UnconnectedGradients.ZERO)
    except (tf.errors.OpError, ValueError, TypeError, LookupError) as e:
        return None, str(e).splitlines()[0][:120]
    return ([o.numpy() for o in outs], weights if loss is not None else [],
            [tf.convert_to_tensor(g).numpy() for g in grads] if loss is not None else [],
            isinstance(out, (list, tuple))), None


def storable(x):
    """x as an array np.savez keeps without pickling: TensorFlow's strings
    come back as object arrays of bytes, stored as fixed-width bytes ('S',
    which drops trailing NUL bytes: cases avoid them)."""
    x = np.asarray(x)
    if x.dtype == object:
        return np.array(x.tolist(), dtype=bytes).reshape(x.shape) if x.size else np.zeros(x.shape, "S1")
    return x


def record_op(tf, name, gen):
    arrays, meta, refused = {}, [], []
    for k, case in enumerate(gen()):
        result, err = run_tf(tf, case)
        if result is None:
            refused.append(f"{case.label}: {err}")
            continue
        outs, weights, grads, listed = result
        n = len(meta)
        for j, x in enumerate(case.inputs):
            arrays[f"c{n}_i{j}"] = x
        for j, x in enumerate(outs):
            arrays[f"c{n}_o{j}"] = storable(x)
        for j, w in enumerate(weights):
            if w is not None:
                arrays[f"c{n}_w{j}"] = w
        for j, g in enumerate(grads):
            arrays[f"c{n}_g{j}"] = np.asarray(g)
        meta.append(case.meta(len(outs), [j for j, w in enumerate(weights) if w is not None], len(grads) > 0,
                              listed))
    arrays["meta"] = np.array(json.dumps({"op": name, "cases": meta}))
    return arrays, len(meta), refused


def registry_ops(tfg):
    out = subprocess.run([tfg, "doc", "ops"], capture_output=True, text=True, check=True).stdout
    return [line[3:].strip() for line in out.splitlines() if line.startswith("## ")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tfg", default=os.path.join(ROOT, "build-asan", "tfg"))
    ap.add_argument("--only", nargs="*", help="record only these ops")
    args = ap.parse_args()
    tf = tf_module()
    rows = table_lib.read_table()
    data_dir = os.path.join(HERE, "data")
    os.makedirs(data_dir, exist_ok=True)
    counts = {}
    for row in rows:
        name = row["tfg"]
        gen = case_lib.GENERATORS.get(name)
        if gen is None or row["tf_api"] == "-":
            continue
        if args.only and name not in args.only:
            continue
        arrays, n, refused = record_op(tf, name, gen)
        np.savez_compressed(os.path.join(data_dir, name + ".npz"), **arrays)
        counts[name] = n
        print(f"{name}: {n} cases" + (f", {len(refused)} refused by TensorFlow" if refused else ""))
        for r in refused:
            print("   TF refused", r)
    # coverage.txt follows from the table and every data file, so a partial
    # recording (--only) refreshes it too.
    with open(os.path.join(HERE, "coverage.txt"), "w") as f:
        f.write(table_lib.coverage_text(rows, registry_ops(args.tfg), data_dir))


if __name__ == "__main__":
    main()
