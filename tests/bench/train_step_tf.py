"""TensorFlow peer of tests/bench/train_step.tfg: the same models, optimizer
and batch, the step compiled with tf.function, timed the same way (best of 3
repetitions of STEPS steps after a warm-up), on as many threads as tfg gets.

python3 tests/bench/train_step_tf.py MODEL STEPS BATCH THREADS
"""
import os
import sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from peer_timing import best_step_ms  # noqa: E402


def build(model):
    layers = tf.keras.layers
    if model == "mlp":
        body = [layers.Flatten(), layers.Dense(256, activation="relu"), layers.Dense(128, activation="relu")]
    else:
        body = [layers.Reshape((28, 28, 1)), layers.Conv2D(32, 3, padding="same", activation="relu"),
                layers.MaxPooling2D(2), layers.Conv2D(64, 3, padding="same", activation="relu"),
                layers.MaxPooling2D(2), layers.Flatten(), layers.Dense(128, activation="relu")]
    return tf.keras.Sequential([tf.keras.Input((28, 28))] + body + [layers.Dense(10)])


def main():
    model_name, steps, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    tf.config.threading.set_inter_op_parallelism_threads(threads)
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.random.set_seed(1)
    model = build(model_name)
    opt = tf.keras.optimizers.Adam(0.001)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    xs = tf.random.uniform((batch, 28, 28))
    ys = tf.random.uniform((batch,), maxval=10, dtype=tf.int32)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(ys, model(xs, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    print("tensorflow", model_name, "batch", batch, "step_ms", best_step_ms(step, steps))


if __name__ == "__main__":
    main()
