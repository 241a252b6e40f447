#!/usr/bin/env python3
"""TensorFlow's side of the word2vec benchmark (scripts/bench): the graph of
examples/word2vec.tfg in tf.compat.v1 — skip-gram on WordNet's glosses,
batch 128, window 2, 64 log-uniform noise words, 128-dim embeddings and NCE
weights in two "div" shards, plain SGD(1.0), batches cut from the corpus in
the graph — on the same threads. Prints "examples/s N" (pairs per second
over the timed steps, after warm-up steps).

    python3 tests/bench/word2vec_tf.py [steps] [threads]
"""
import os
import re
import sys
import time
from collections import Counter

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np  # noqa: E402
import tensorflow as tf  # noqa: E402

BATCH, WINDOW, NUM_SAMPLED, DIM, MIN_COUNT = 128, 2, 64, 128, 5
# read_tokens(split="words", lower=true, after="| ") of tfg.
WORD = re.compile(rb"[A-Za-z0-9\x80-\xff]+(?:['-][A-Za-z0-9\x80-\xff]+)*")


def corpus():
    tokens = []
    for pos in ("noun", "verb", "adj", "adv"):
        with open(f"/usr/share/wordnet/data.{pos}", "rb") as f:
            for line in f:
                at = line.find(b"| ")
                if at >= 0:
                    tokens += WORD.findall(line[at + 2:].lower())
    counts = Counter(tokens)
    # build_vocab's order: most frequent first, ties by first appearance.
    vocab = [b"<unk>"] + [w for w, c in counts.most_common() if c >= MIN_COUNT]
    index = {w: i for i, w in enumerate(vocab)}
    ids = np.array([index.get(w, 0) for w in tokens], np.int64)
    freq = np.bincount(ids, minlength=len(vocab)) / len(tokens)
    keep = np.sqrt(1e-3 / freq) + 1e-3 / freq
    kept = ids[np.random.default_rng(1).uniform(size=len(ids)) < keep[ids]]
    return kept, len(vocab)


def main():
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else os.cpu_count()
    kept, vocab_size = corpus()
    n = len(kept)
    tf.compat.v1.disable_eager_execution()
    tf.compat.v1.set_random_seed(1)
    v1 = tf.compat.v1
    half = (vocab_size + 1) // 2
    sizes = [half, vocab_size - half]
    emb = [v1.Variable(v1.random_uniform([s, DIM], -0.5 / DIM, 0.5 / DIM, seed=10 + k)) for k, s in enumerate(sizes)]
    nce_w = [v1.Variable(tf.zeros([s, DIM])) for s in sizes]
    nce_b = v1.Variable(tf.zeros([vocab_size]))
    corpus_t = tf.constant(kept)
    center_pos = v1.random_uniform([BATCH], WINDOW, n - WINDOW, dtype=tf.int64, seed=2)
    dist = v1.random_uniform([BATCH], 1, WINDOW + 1, dtype=tf.int64, seed=3)
    side = v1.random_uniform([BATCH], 0, 2, dtype=tf.int64, seed=4) * 2 - 1
    centers = tf.gather(corpus_t, center_pos)
    contexts = tf.reshape(tf.gather(corpus_t, center_pos + dist * side), [BATCH, 1])
    embedded = v1.nn.embedding_lookup(emb, centers, partition_strategy="div")
    loss = tf.reduce_mean(v1.nn.nce_loss(nce_w, nce_b, contexts, embedded, NUM_SAMPLED, vocab_size,
                                         partition_strategy="div"))
    train = v1.train.GradientDescentOptimizer(1.0).minimize(loss)
    config = v1.ConfigProto(intra_op_parallelism_threads=threads, inter_op_parallelism_threads=threads)
    with v1.Session(config=config) as sess:
        sess.run(v1.global_variables_initializer())
        for _ in range(50):
            sess.run(train)
        start = time.perf_counter()
        for _ in range(steps):
            sess.run([train, loss])
        seconds = time.perf_counter() - start
    print("examples/s", steps * BATCH / seconds)


if __name__ == "__main__":
    main()
