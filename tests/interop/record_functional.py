#!/usr/bin/env python3
"""Records TensorFlow 2 functional control flow (While/StatelessWhile,
If/StatelessIf whose bodies are FunctionDefs in the GraphDef's library)
for tfg's import tests, tests/scripts/interop/import_functional_*.tfg.

Each graph is a tf.function's concrete graph (`graph.as_graph_def()`), or,
for while_rnn, a frozen one (convert_variables_to_constants_v2 with
lower_control_flow=False), written as binary .pb with its inputs and
TensorFlow's outputs as .npy into tests/interop/data/. CI needs no
TensorFlow. Rerun after changing a graph here:

  python3 tests/interop/record_functional.py   (needs TensorFlow 2.x and NumPy)

Graphs:
  while_count.pb  counting while loop (i < 5) with an f32[3] tensor carry
  while_grow.pb   two loop vars, the second grows each step (shape invariant [None])
  while_rnn.pb    frozen tanh RNN over a fed step count: While around a MatMul with a variable's value
  if_branch.pb    If on a fed boolean choosing between two branches (outputs for true and false)
  while_if.pb     an If nested in a While body (odd/even steps do different updates)
  case.pb         tf.switch_case (StatelessCase) over three branches on a fed index,
                  outputs for indices 0, 1, 2 and 7 (out of range: the last branch)
Graphs tfg refuses (the error tests):
  if_cholesky.pb          an If whose true branch has a Cholesky (tfg has no op for it)
  if_missing_branch.pbtxt if_branch.pb with its false branch's function taken out of the library
  if_bad_input.pbtxt      if_branch.pb with a true-branch node reading an output its op does not have
"""
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.framework import convert_to_constants  # noqa: E402

DATA = pathlib.Path(__file__).resolve().parent / "data"
rng = np.random.default_rng(2525)


def save(name, graph_def, arrays):
    DATA.mkdir(exist_ok=True)
    (DATA / name).write_bytes(graph_def.SerializeToString())
    stem = name.split(".")[0]
    for key, value in arrays.items():
        np.save(DATA / f"{stem}_{key}.npy", np.asarray(value))
    ops = sorted({n.op for n in graph_def.node})
    fns = [f.signature.name for f in graph_def.library.function]
    print(f"{name}: ops {ops}, functions {fns}")


def while_count():
    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32, name="x")])
    def f(x):
        _, y = tf.while_loop(lambda i, v: i < 5, lambda i, v: (i + 1, v * 1.5 + 1.0), [tf.constant(0), x])
        return y

    x = rng.standard_normal(3).astype(np.float32)
    cf = f.get_concrete_function()
    save("while_count.pb", cf.graph.as_graph_def(), {"x": x, "out": f(x).numpy()})
    return cf


def while_grow():
    @tf.function(input_signature=[tf.TensorSpec([], tf.float32, name="x")])
    def f(x):
        def body(i, acc):
            nxt = acc[-1:] * 0.5 + tf.cast(i, tf.float32)
            return i + 1, tf.concat([acc, nxt], 0)

        _, acc = tf.while_loop(lambda i, acc: i < 4, body, [tf.constant(0), tf.reshape(x, [1])],
                               shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
        return acc

    x = np.float32(rng.standard_normal())
    save("while_grow.pb", f.get_concrete_function().graph.as_graph_def(), {"x": x, "out": f(x).numpy()})


def while_rnn():
    w = tf.Variable(rng.standard_normal((4, 4)).astype(np.float32) * 0.5)

    @tf.function(input_signature=[tf.TensorSpec([2, 4], tf.float32, name="x"),
                                  tf.TensorSpec([], tf.int32, name="steps")])
    def f(x, steps):
        def body(i, h):
            return i + 1, tf.tanh(tf.matmul(h, w) + x)

        _, h = tf.while_loop(lambda i, h: i < steps, body, [tf.constant(0), tf.zeros([2, 4])])
        return h

    cf = f.get_concrete_function()
    frozen = convert_to_constants.convert_variables_to_constants_v2(cf, lower_control_flow=False)
    x = rng.standard_normal((2, 4)).astype(np.float32)
    steps = np.int32(6)
    save("while_rnn.pb", frozen.graph.as_graph_def(), {"x": x, "steps": steps, "out": f(x, steps).numpy()})


def if_branch():
    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32, name="x"),
                                  tf.TensorSpec([], tf.bool, name="flag")])
    def f(x, flag):
        return tf.cond(flag, lambda: x * 2.0 + 1.0, lambda: tf.tanh(x) - 3.0)

    x = rng.standard_normal((2, 3)).astype(np.float32)
    save("if_branch.pb", f.get_concrete_function().graph.as_graph_def(),
         {"x": x, "out_true": f(x, True).numpy(), "out_false": f(x, False).numpy()})


def while_if():
    @tf.function(input_signature=[tf.TensorSpec([3], tf.float32, name="x")])
    def f(x):
        def body(i, v):
            v = tf.cond(tf.equal(tf.math.floormod(i, 2), 0), lambda: v * 0.5 + 1.0, lambda: v - tf.tanh(v))
            return i + 1, v

        _, y = tf.while_loop(lambda i, v: i < 7, body, [tf.constant(0), x])
        return y

    x = rng.standard_normal(3).astype(np.float32)
    save("while_if.pb", f.get_concrete_function().graph.as_graph_def(), {"x": x, "out": f(x).numpy()})


def case():
    @tf.function(input_signature=[tf.TensorSpec([2, 3], tf.float32, name="x"),
                                  tf.TensorSpec([], tf.int32, name="k")])
    def f(x, k):
        return tf.switch_case(k, [lambda: x * 3.0, lambda: tf.tanh(x) + 0.5, lambda: tf.constant(1.0) - x])

    x = rng.standard_normal((2, 3)).astype(np.float32)
    outs = {f"out{k}": f(x, np.int32(k)).numpy() for k in (0, 1, 2, 7)}
    save("case.pb", f.get_concrete_function().graph.as_graph_def(), {"x": x, **outs})


def refused():
    @tf.function(input_signature=[tf.TensorSpec([2, 2], tf.float32, name="a"),
                                  tf.TensorSpec([], tf.bool, name="flag")])
    def f(a, flag):
        return tf.cond(flag, lambda: tf.linalg.cholesky(a), lambda: a * 2.0)

    save("if_cholesky.pb", f.get_concrete_function().graph.as_graph_def(), {})
    g = tf.compat.v1.GraphDef()
    g.ParseFromString((DATA / "if_branch.pb").read_bytes())
    missing = tf.compat.v1.GraphDef()
    missing.CopyFrom(g)
    else_name = next(n.attr["else_branch"].func.name for n in g.node if n.op == "StatelessIf")
    kept = [fn for fn in missing.library.function if fn.signature.name != else_name]
    del missing.library.function[:]
    missing.library.function.extend(kept)
    (DATA / "if_missing_branch.pbtxt").write_text(str(missing))
    bad = tf.compat.v1.GraphDef()
    bad.CopyFrom(g)
    then_name = next(n.attr["then_branch"].func.name for n in g.node if n.op == "StatelessIf")
    then_fn = next(fn for fn in bad.library.function if fn.signature.name == then_name)
    node = next(n for n in then_fn.node_def if n.op == "AddV2")
    node.input[0] = node.input[0].replace(":z:", ":product:")
    (DATA / "if_bad_input.pbtxt").write_text(str(bad))
    print("refused graphs written")


if __name__ == "__main__":
    while_count()
    while_grow()
    while_rnn()
    if_branch()
    while_if()
    case()
    refused()
