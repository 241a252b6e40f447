"""PyTorch's peer of tests/bench/large_tensors_gpu.tfg on the same GPU:
x = col + row broadcast to [4096, N / 4096], the 8-op chain and its sum,
eager and (where it compiles) torch.compile, timed as peer_timing does.

python3 tests/bench/large_tensors_gpu_torch.py N REPS
"""
import sys

import torch

from peer_timing import best_step_ms


def chain_sum(col, row):
    x = col.reshape(-1, 1) + row.reshape(1, -1)
    y = ((x * 1.5 + 0.25) * x - 0.5) * 0.75 + x
    y = y * y + 1
    return y.sum()


def main():
    n, reps = int(sys.argv[1]), int(sys.argv[2])
    rows = 4096
    cols = n // rows
    col = torch.arange(rows, device="cuda", dtype=torch.float32) * (1.0 / rows)
    row = torch.arange(cols, device="cuda", dtype=torch.float32) * (0.5 / cols)
    runs = [("eager", chain_sum)]
    try:
        runs.append(("compiled", torch.compile(chain_sum)))
    except Exception as e:  # noqa: BLE001 - a peer that can not compile is skipped
        print("torch.compile unavailable:", e)
    for name, fn in runs:
        try:
            total = fn(col, row).item()
            ms = best_step_ms(lambda: fn(col, row).item(), reps)
        except Exception as e:  # noqa: BLE001
            print(f"torch {name}: failed: {type(e).__name__}: {str(e)[:200]}")
            continue
        print(f"torch {name} chain+sum gpu {n / ms / 1e6:.3f} gelem/s total {total}")


if __name__ == "__main__":
    main()
