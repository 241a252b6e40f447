"""The TensorFlow reference for examples/char_rnn.tfg's validation bits per
character: the same corpus, split, data order (truncated BPTT over 32 rows,
64 characters a step, state carried between steps), model (2-layer LSTM
over one-hot characters, softmax layer), Adam(0.002) and
clip_by_global_norm(5), in TensorFlow 1.x graph mode (LSTMBlockCell, or
LSTMCell with `lstm`). Prints the validation bpc after each epoch.
Usage: python3 char_rnn_bpc_tf.py [EPOCHS] [HIDDEN] [MAX_CHARS] [THREADS] [block|lstm]"""
import math
import os
import sys
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import rnn as tf_rnn  # noqa: E402
from tensorflow.python.ops import rnn_cell_impl  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from char_rnn_tf_model import lstm_block_cell  # noqa: E402

epochs = int(sys.argv[1]) if len(sys.argv) > 1 else 6
hidden = int(sys.argv[2]) if len(sys.argv) > 2 else 128
max_chars = int(sys.argv[3]) if len(sys.argv) > 3 else 300000
threads = int(sys.argv[4]) if len(sys.argv) > 4 else 2
kind = sys.argv[5] if len(sys.argv) > 5 else "block"
files = ["fortunes", "wisdom", "literature", "science", "people", "humorists"]
batch, seq_len, layers, lr, clip, valid_fraction = 32, 64, 2, 0.002, 5.0, 0.1

# The corpus as examples/char_rnn.tfg reads it: files in order, UTF-8
# characters, ids by first appearance.
chars = []
for f in files:
    with open("/usr/share/games/fortunes/" + f, encoding="utf-8", errors="surrogateescape") as fh:
        chars.extend(fh.read())
if 0 < max_chars < len(chars):
    chars = chars[:max_chars]
index = {}
ids = np.array([index.setdefault(c, len(index)) for c in chars], np.int32)
vocab = len(index)
n_valid = int(len(ids) * valid_fraction)
n_train = len(ids) - n_valid


def rows(stream):
    per_row = (len(stream) - 1) // batch
    return (stream[:batch * per_row].reshape(batch, per_row), stream[1:batch * per_row + 1].reshape(batch, per_row))


train_rows, valid_rows = rows(ids[:n_train]), rows(ids[n_train:])
train_steps, valid_steps = train_rows[0].shape[1] // seq_len, valid_rows[0].shape[1] // seq_len
print("corpus:", len(ids), "characters,", vocab, "distinct;", n_train, "for training,", n_valid, "held out")

tf.compat.v1.disable_eager_execution()
x = tf.compat.v1.placeholder(tf.int32, [None, None])
y = tf.compat.v1.placeholder(tf.int32, [None, None])
state_in = tuple(rnn_cell_impl.LSTMStateTuple(tf.compat.v1.placeholder(tf.float32, [None, hidden]),
                                              tf.compat.v1.placeholder(tf.float32, [None, hidden]))
                 for _ in range(layers))
make = lstm_block_cell if kind == "block" else (lambda n: rnn_cell_impl.LSTMCell(n))
cell = rnn_cell_impl.MultiRNNCell([make(hidden) for _ in range(layers)])
outs, state_out = tf_rnn.dynamic_rnn(cell, tf.one_hot(x, vocab), initial_state=state_in)
w = tf.compat.v1.get_variable("softmax/kernel", [hidden, vocab])
b = tf.compat.v1.get_variable("softmax/bias", [vocab], initializer=tf.compat.v1.zeros_initializer())
logits = tf.matmul(tf.reshape(outs, [-1, hidden]), w) + b
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(y, [-1]), logits=logits))
params = tf.compat.v1.trainable_variables()
grads, _ = tf.clip_by_global_norm(tf.gradients(loss, params), clip)
train = tf.compat.v1.train.AdamOptimizer(lr).apply_gradients(zip(grads, params))


def zero_state():
    return tuple((np.zeros([batch, hidden], np.float32), np.zeros([batch, hidden], np.float32)) for _ in range(layers))


def feed(xs, ys, state):
    f = {x: xs, y: ys}
    for ph, v in zip(state_in, state):
        f[ph.c], f[ph.h] = v
    return f


def window(r, k):
    return r[0][:, k * seq_len:(k + 1) * seq_len], r[1][:, k * seq_len:(k + 1) * seq_len]


config = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=threads, intra_op_parallelism_threads=threads)
with tf.compat.v1.Session(config=config) as s:
    s.run(tf.compat.v1.global_variables_initializer())
    for epoch in range(epochs):
        state, start = zero_state(), time.perf_counter()
        for k in range(train_steps):
            _, state = s.run([train, state_out], feed(*window(train_rows, k), state))
        seconds = time.perf_counter() - start
        state, total = zero_state(), 0.0
        for k in range(valid_steps):
            l, state = s.run([loss, state_out], feed(*window(valid_rows, k), state))
            total += l
        print("epoch", epoch + 1, "validation bpc", round(total / valid_steps / math.log(2), 3),
              "(%d s)" % round(seconds))
