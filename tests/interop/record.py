#!/usr/bin/env python3
"""Records the TensorFlow side of tfg's GraphDef import tests.

Builds small graphs in TensorFlow 2.x through tf.compat.v1 (graph mode,
control flow v1), writes each as a GraphDef (binary .pb or text .pbtxt)
with an input and TensorFlow's output as .npy files into
tests/interop/data/. The script tests tests/scripts/interop/*.tfg import
these files with import_graph_def, run them and compare with TensorFlow's
outputs, so CI needs no TensorFlow. Rerun after changing a graph here:

  python3 tests/interop/record.py        (needs TensorFlow 2.x and NumPy)

Graphs (all small: the data is committed):
  mlp.pb        frozen MLP (variables -> Const through convert_variables_to_constants)
  cnn.pb        the Fashion-MNIST CNN's shape (conv/relu/max_pool x2, dense x2), frozen, NHWC
  cnn_nchw.pb   the same CNN written with data_format NCHW (input NCHW)
  bn.pbtxt      conv + FusedBatchNormV3 (inference) + relu + mean + dense, text format
  rnn.pb        a tanh RNN over 5 steps in tf.compat.v1.while_loop, control flow v1
  vars.pbtxt    a layer with VariableV2 + Assign initializers (not frozen): run `init`, then the output
  vars_resource.pbtxt  the same with resource variables (VarHandleOp, AssignVariableOp, ReadVariableOp)
"""
import os
import pathlib

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

v1 = tf.compat.v1
v1.disable_eager_execution()
v1.disable_control_flow_v2()
DATA = pathlib.Path(__file__).resolve().parent / "data"
rng = np.random.default_rng(25)


def weights(*shape, scale=0.3):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def save(name, graph_def, x, out, text=False):
    DATA.mkdir(exist_ok=True)
    path = DATA / name
    if text:
        path.write_text(str(graph_def))
    else:
        path.write_bytes(graph_def.SerializeToString())
    stem = name.split(".")[0]
    np.save(DATA / f"{stem}_x.npy", x)
    np.save(DATA / f"{stem}_out.npy", out)
    print(f"{name}: {path.stat().st_size} bytes, out {out.shape}")


def frozen(sess, graph, outputs):
    return v1.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), outputs)


def dense(x, n_in, n_out, name, act=None):
    with v1.variable_scope(name):
        w = v1.get_variable("kernel", initializer=weights(n_in, n_out))
        b = v1.get_variable("bias", initializer=weights(n_out, scale=0.1))
        y = tf.nn.bias_add(tf.matmul(x, w), b)
        return act(y) if act else y


def mlp():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 20], name="x")
        h = dense(x, 20, 16, "dense", tf.nn.relu)
        logits = dense(h, 16, 10, "dense_1")
        tf.nn.softmax(logits, name="probs")
        xs = rng.standard_normal((4, 20)).astype(np.float32)
        with v1.Session(graph=g) as s:
            s.run(v1.global_variables_initializer())
            out = s.run("probs:0", {x: xs})
            save("mlp.pb", frozen(s, g, ["probs"]), xs, out)


def cnn_layers(x, nchw):
    fmt = "NCHW" if nchw else "NHWC"
    k1, k2 = weights(5, 5, 1, 8), weights(5, 5, 8, 16, scale=0.1)
    c = [1, 1, 1, 1]
    pool = [1, 1, 2, 2] if nchw else [1, 2, 2, 1]
    y = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k1, c, "SAME", data_format=fmt), weights(8), data_format=fmt))
    y = tf.nn.max_pool2d(y, pool, pool, "SAME", data_format=fmt)
    y = tf.nn.relu(tf.nn.conv2d(y, k2, c, "SAME", data_format=fmt))
    y = tf.nn.avg_pool2d(y, pool, pool, "VALID", data_format=fmt)
    if nchw:
        y = tf.transpose(y, [0, 2, 3, 1])
    y = tf.reshape(y, [-1, 7 * 7 * 16])
    y = tf.nn.relu(tf.matmul(y, weights(7 * 7 * 16, 16, scale=0.05)) + weights(16))
    return tf.identity(tf.matmul(y, weights(16, 10)), name="logits")


def cnn():
    xs = rng.random((3, 28, 28, 1)).astype(np.float32)
    state = rng.bit_generator.state
    for nchw in (False, True):
        rng.bit_generator.state = state  # the same weights for both layouts
        g = tf.Graph()
        with g.as_default():
            shape = [None, 1, 28, 28] if nchw else [None, 28, 28, 1]
            x = v1.placeholder(tf.float32, shape, name="x")
            cnn_layers(x, nchw)
            feed = xs.transpose(0, 3, 1, 2) if nchw else xs
            if nchw:
                # TensorFlow's CPU kernels take NHWC only: record the NHWC
                # graph's output (the same weights) for the NCHW graph.
                out = expected
            else:
                with v1.Session(graph=g) as s:
                    out = s.run("logits:0", {x: feed})
                expected = out
            save("cnn_nchw.pb" if nchw else "cnn.pb", g.as_graph_def(), feed, out)


def bn():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 8, 8, 3], name="x")
        y = tf.nn.conv2d(x, weights(3, 3, 3, 4), [1, 1, 1, 1], "SAME")
        y, _, _ = v1.nn.fused_batch_norm(y, weights(4) + 1, weights(4), weights(4, scale=0.1),
                                         np.abs(weights(4)) + 0.5, epsilon=1e-3, is_training=False)
        y = tf.reduce_mean(tf.nn.relu(y), axis=[1, 2])
        tf.matmul(y, weights(4, 5), name="out")
        xs = rng.standard_normal((2, 8, 8, 3)).astype(np.float32)
        with v1.Session(graph=g) as s:
            out = s.run("out:0", {x: xs})
        save("bn.pbtxt", g.as_graph_def(), xs, out, text=True)


def rnn():
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [5, 2, 3], name="x")
        wx, wh = tf.constant(weights(3, 4)), tf.constant(weights(4, 4))

        def body(i, h):
            xt = tf.gather(x, i)
            return i + 1, tf.tanh(tf.matmul(xt, wx) + tf.matmul(h, wh))

        _, h = v1.while_loop(lambda i, h: i < 5, body, [tf.constant(0), tf.zeros([2, 4])])
        tf.identity(h, name="h")
        ops = {n.op for n in g.as_graph_def().node}
        assert {"Enter", "Merge", "Switch", "NextIteration", "Exit", "LoopCond"} <= ops, ops
        xs = rng.standard_normal((5, 2, 3)).astype(np.float32)
        with v1.Session(graph=g) as s:
            out = s.run("h:0", {x: xs})
        save("rnn.pb", g.as_graph_def(), xs, out)


def variables(resource):
    g = tf.Graph()
    with g.as_default():
        x = v1.placeholder(tf.float32, [None, 6], name="x")
        w = v1.Variable(weights(6, 3), name="w", use_resource=resource)
        b = v1.Variable(weights(3), name="b", use_resource=resource)
        tf.nn.relu(tf.matmul(x, w) + b, name="out")
        v1.variables_initializer([w, b], name="init")
        kind = "VarHandleOp" if resource else "VariableV2"
        assert kind in {n.op for n in g.as_graph_def().node}
        xs = rng.standard_normal((2, 6)).astype(np.float32)
        with v1.Session(graph=g) as s:
            s.run("init")
            out = s.run("out:0", {x: xs})
        gd = g.as_graph_def()
        # v.is_initialized() checks, which nothing here runs and tfg has no op for.
        keep = [n for n in gd.node if n.op != "VarIsInitializedOp"]
        del gd.node[:]
        gd.node.extend(keep)
        save("vars_resource.pbtxt" if resource else "vars.pbtxt", gd, xs, out, text=True)


if __name__ == "__main__":
    mlp()
    cnn()
    bn()
    rnn()
    variables(resource=False)
    variables(resource=True)
