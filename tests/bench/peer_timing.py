"""Timing shared by the peer benchmarks (train_step_tf.py, train_step_torch.py),
the same way tests/bench/train_step.tfg times tfg: a warm-up of 5 steps,
then the best of 3 repetitions of `steps` steps."""
import time


def best_step_ms(step, steps):
    for _ in range(5):
        step()
    best = 1e9
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(steps):
            step()
        best = min(best, (time.perf_counter() - start) / steps)
    return best * 1000
