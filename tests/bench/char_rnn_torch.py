"""scripts/bench: the char-RNN training step of tests/bench/char_rnn.tfg in
PyTorch: nn.LSTM (2 layers) over one-hot characters, batch 32, 64 steps,
a linear softmax layer, clip_grad_norm_(5), Adam; prints the best step time
in milliseconds (tests/bench/peer_timing.py).
Usage: python3 char_rnn_torch.py STEPS THREADS [HIDDEN]"""
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peer_timing import best_step_ms  # noqa: E402

steps = int(sys.argv[1])
threads = int(sys.argv[2])
hidden = int(sys.argv[3]) if len(sys.argv) > 3 else 256
batch, seq_len, vocab, layers = 32, 64, 96, 2
torch.set_num_threads(threads)
torch.manual_seed(1)

lstm = torch.nn.LSTM(vocab, hidden, num_layers=layers, batch_first=True)
out_layer = torch.nn.Linear(hidden, vocab)
params = list(lstm.parameters()) + list(out_layer.parameters())
opt = torch.optim.Adam(params, lr=0.002)
x = torch.nn.functional.one_hot(torch.randint(0, vocab, (batch, seq_len)), vocab).float()
y = torch.randint(0, vocab, (batch * seq_len,))


def step():
    opt.zero_grad()
    outs, _ = lstm(x)
    loss = torch.nn.functional.cross_entropy(out_layer(outs.reshape(-1, hidden)), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 5.0)
    opt.step()


print("pytorch char_rnn hidden", hidden, "step_ms", best_step_ms(step, steps))
