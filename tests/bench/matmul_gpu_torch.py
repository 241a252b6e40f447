"""Bare cuBLAS through PyTorch, the peer of tests/bench/matmul_gpu.tfg: the
same chain of eight n x n x n products per step, timed the same way
(peer_timing.best_step_ms: 5 warm-up steps, best of 3 repetitions), with
a and b already on the GPU. f32 is plain SGEMM (TF32 off, PyTorch's
default); f16 accumulates in f32.

python3 tests/bench/matmul_gpu_torch.py N REPS DTYPE
"""
import sys

import torch

from peer_timing import best_step_ms


def main():
    n, reps, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    dtype = torch.float16 if name == "f16" else torch.float32
    torch.backends.cuda.matmul.allow_tf32 = False
    chain = 8
    a = torch.rand(n, n, device="cuda").to(dtype)
    b = (torch.rand(n, n, device="cuda") * (2.0 / n)).to(dtype)

    def step():
        p = a
        for _ in range(chain):
            p = p @ b
        return p[0, 0].float().item()  # waits for the products, as a tfg run() does

    best = best_step_ms(step, reps) / 1000
    print("cublas matmul", name, "n", n, "tflops", chain * 2.0 * n ** 3 / best / 1e12)


if __name__ == "__main__":
    main()
