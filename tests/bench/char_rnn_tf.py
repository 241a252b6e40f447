"""scripts/bench: the char-RNN training step of tests/bench/char_rnn.tfg in
TensorFlow 1.x graph mode (tf.compat.v1): a 2-layer LSTM (LSTMBlockCell, or
LSTMCell with `cell=lstm`) over one-hot characters, batch 32, 64 steps
unrolled by tf.nn.dynamic_rnn, softmax, clip_by_global_norm(5), Adam;
prints the best step time in milliseconds (tests/bench/peer_timing.py).
Usage: python3 char_rnn_tf.py STEPS THREADS [HIDDEN] [block|lstm]"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402
from tensorflow.python.ops import rnn as tf_rnn  # noqa: E402
from tensorflow.python.ops import rnn_cell_impl  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from char_rnn_tf_model import lstm_block_cell  # noqa: E402
from peer_timing import best_step_ms  # noqa: E402

steps = int(sys.argv[1])
threads = int(sys.argv[2])
hidden = int(sys.argv[3]) if len(sys.argv) > 3 else 256
kind = sys.argv[4] if len(sys.argv) > 4 else "block"
batch, seq_len, vocab, layers = 32, 64, 96, 2

tf.compat.v1.disable_eager_execution()
x = tf.compat.v1.placeholder(tf.int32, [batch, seq_len])
y = tf.compat.v1.placeholder(tf.int32, [batch, seq_len])
make = lstm_block_cell if kind == "block" else (lambda n: rnn_cell_impl.LSTMCell(n))
cell = rnn_cell_impl.MultiRNNCell([make(hidden) for _ in range(layers)])
outs, _ = tf_rnn.dynamic_rnn(cell, tf.one_hot(x, vocab), dtype=tf.float32)
w = tf.compat.v1.get_variable("softmax/kernel", [hidden, vocab])
b = tf.compat.v1.get_variable("softmax/bias", [vocab], initializer=tf.compat.v1.zeros_initializer())
logits = tf.matmul(tf.reshape(outs, [-1, hidden]), w) + b
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=tf.reshape(y, [-1]), logits=logits))
params = tf.compat.v1.trainable_variables()
grads, _ = tf.clip_by_global_norm(tf.gradients(loss, params), 5.0)
train = tf.compat.v1.train.AdamOptimizer(0.002).apply_gradients(zip(grads, params))

config = tf.compat.v1.ConfigProto(inter_op_parallelism_threads=threads, intra_op_parallelism_threads=threads)
rng = np.random.RandomState(1)
feed = {x: rng.randint(0, vocab, [batch, seq_len]), y: rng.randint(0, vocab, [batch, seq_len])}
with tf.compat.v1.Session(config=config) as s:
    s.run(tf.compat.v1.global_variables_initializer())
    print("tensorflow char_rnn", kind, "hidden", hidden, "step_ms", best_step_ms(lambda: s.run(train, feed), steps))
