"""Bare cuBLAS through PyTorch, the peer of tests/bench/matmul_gpu.tfg: the
same chain of eight n x n x n products per step, timed the same way, with
a and b already on the GPU. f32 is plain SGEMM (TF32 off, PyTorch's
default); f16 accumulates in f32.

python3 tests/bench/matmul_gpu_torch.py N REPS DTYPE
"""
import sys
import time

import torch


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

    for _ in range(3):
        step()
    best = 1e9
    for _ in range(3):
        start = time.perf_counter()
        for _ in range(reps):
            step()
        best = min(best, (time.perf_counter() - start) / reps)
    print("cublas matmul", name, "n", n, "tflops", chain * 2.0 * n ** 3 / best / 1e12)


if __name__ == "__main__":
    main()
