"""TensorFlow peer of tests/bench/resnet_step.tfg: the same ResNet-20 (batch
norm, 1x1 projection shortcuts), SGD with momentum and batch, the step
compiled with tf.function, timed the same way, on as many threads as tfg.

python3 tests/bench/resnet_step_tf.py STEPS BATCH THREADS
"""
import os
import sys
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

from peer_timing import best_step_ms  # noqa: E402

layers = tf.keras.layers


def conv_bn(h, filters, stride, act=True):
    h = layers.Conv2D(filters, 3, strides=stride, padding="same", use_bias=False, kernel_initializer="he_normal")(h)
    h = layers.BatchNormalization(epsilon=0.001, momentum=0.99)(h)
    return layers.ReLU()(h) if act else h


def block(h, filters, stride):
    shortcut = h
    if stride != 1 or h.shape[-1] != filters:
        shortcut = layers.Conv2D(filters, 1, strides=stride, use_bias=False, kernel_initializer="he_normal")(h)
        shortcut = layers.BatchNormalization(epsilon=0.001, momentum=0.99)(shortcut)
    h = conv_bn(h, filters, stride)
    h = conv_bn(h, filters, 1, act=False)
    return layers.ReLU()(h + shortcut)


def build():
    x = tf.keras.Input((32, 32, 3))
    h = conv_bn(x, 16, 1)
    for stage, filters in enumerate([16, 32, 64]):
        for i in range(3):
            h = block(h, filters, 2 if stage > 0 and i == 0 else 1)
    logits = layers.Dense(10)(layers.GlobalAveragePooling2D()(h))
    return tf.keras.Model(x, logits)


def main():
    steps, batch, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    tf.config.threading.set_inter_op_parallelism_threads(threads)
    tf.config.threading.set_intra_op_parallelism_threads(threads)
    tf.random.set_seed(1)
    model = build()
    opt = tf.keras.optimizers.SGD(0.1, momentum=0.9)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    xs = tf.random.uniform((batch, 32, 32, 3))
    ys = tf.random.uniform((batch,), maxval=10, dtype=tf.int32)

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(ys, model(xs, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), model.trainable_variables))
        return loss

    print("tensorflow resnet20 batch", batch, "step_ms", best_step_ms(step, steps))


if __name__ == "__main__":
    main()
