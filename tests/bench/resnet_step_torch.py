"""PyTorch peer of tests/bench/resnet_step.tfg: the same ResNet-20 (batch
norm, 1x1 projection shortcuts), SGD with momentum and batch, timed the
same way, on as many threads as tfg. PyTorch's tensors are NCHW, its
native CPU layout (channels-last is slower for it here).

python3 tests/bench/resnet_step_torch.py STEPS BATCH THREADS
"""
import sys
import torch
from torch import nn

from peer_timing import best_step_ms


class Block(nn.Module):
    def __init__(self, c_in, filters, stride):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(c_in, filters, 3, stride, 1, bias=False), nn.BatchNorm2d(filters, 0.001, 0.01),
                               nn.ReLU(), nn.Conv2d(filters, filters, 3, 1, 1, bias=False),
                               nn.BatchNorm2d(filters, 0.001, 0.01))
        self.shortcut = nn.Identity()
        if stride != 1 or c_in != filters:
            self.shortcut = nn.Sequential(nn.Conv2d(c_in, filters, 1, stride, bias=False),
                                          nn.BatchNorm2d(filters, 0.001, 0.01))

    def forward(self, x):
        return torch.relu(self.a(x) + self.shortcut(x))


def build():
    layers = [nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16, 0.001, 0.01), nn.ReLU()]
    c_in = 16
    for stage, filters in enumerate([16, 32, 64]):
        for i in range(3):
            layers.append(Block(c_in, filters, 2 if stage > 0 and i == 0 else 1))
            c_in = filters
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)]
    return nn.Sequential(*layers)


def main():
    steps, batch, threads = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    model = build()
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    xs = torch.rand(batch, 3, 32, 32)
    ys = torch.randint(0, 10, (batch,))

    def step():
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(xs), ys)
        loss.backward()
        opt.step()

    print("pytorch resnet20 batch", batch, "step_ms", best_step_ms(step, steps))


if __name__ == "__main__":
    main()
