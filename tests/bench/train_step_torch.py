"""PyTorch peer of tests/bench/train_step.tfg: the same models, optimizer and
batch, timed the same way (best of 3 repetitions of STEPS steps after a
warm-up), on as many threads as tfg gets.

python3 tests/bench/train_step_torch.py MODEL STEPS BATCH THREADS [DEVICE]

DEVICE (default cpu) may be cuda, for the GPU comparison of
scripts/run-gpu-checks; each step then ends in a synchronize, as a tfg
run() returns only when its fetches are ready.
"""
import sys
import torch
from torch import nn

from peer_timing import best_step_ms


def build(model):
    if model == "mlp":
        return nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                             nn.Linear(128, 10))
    return nn.Sequential(nn.Unflatten(1, (1, 28)), nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                         nn.Linear(7 * 7 * 64, 128), nn.ReLU(), nn.Linear(128, 10))


def main():
    model_name, steps, batch, threads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
    device = sys.argv[5] if len(sys.argv) > 5 else "cpu"
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = build(model_name).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=0.001)
    loss_fn = nn.CrossEntropyLoss()
    xs = torch.rand(batch, 28, 28, device=device)
    ys = torch.randint(0, 10, (batch,), device=device)

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xs), ys)
        loss.backward()
        opt.step()
        if device != "cpu":
            torch.cuda.synchronize()

    print("pytorch", model_name, "on", device, "batch", batch, "step_ms", best_step_ms(step, steps))


if __name__ == "__main__":
    main()
