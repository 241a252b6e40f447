"""The training the partition and chaos tests run: full-batch gradient
descent with the variables on the ps and one half of the loss on each
worker, checkpointed every EVERY steps. Every step is the same function of
the variables, so a run that lost k steps ends exactly where a run of
steps - k does; `local_run` computes that in one process (--threads 1).
"""

import os
import re
import subprocess
import threading
import time

EVERY = 10

SCRIPT = """
steps = int(argv[0]); dir = argv[1]
x = constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]])
y = constant([[1.0], [2.0], [3.0], [4.0]])
with device(PS) { w = variable(zeros([2, 1]), name="w"); b = variable(zeros([1]), name="b") }
with device(W0) { l0 = mean(square(x[0:2] @ w + b - y[0:2])) }
with device(W1) { l1 = mean(square(x[2:4] @ w + b - y[2:4])) }
train = minimize(l0 + l1, sgd(0.002))
init()
ck = checkpoint_every(EVERY, dir)
for step in range(ck["step"], steps) {
  run(train)
  ck["after_step"](step)
}
print("w", run(w), "b", run(b))
"""

RECOVERED = r"tfg: task (\S+) is back after ([\d.]+) s; restored (\S+), lost (\d+) steps?"


def write_script(path, local=False):
    devices = ('""', '""', '""') if local else ('"/job:ps/task:0"', '"/job:worker/task:0"', '"/job:worker/task:1"')
    text = SCRIPT.replace("EVERY", str(EVERY))
    for name, device in zip(("PS", "W0", "W1"), devices):
        text = text.replace("device(%s)" % name, "device(%s)" % device)
    with open(path, "w") as f:
        f.write(text)
    return path


def local_run(tfg, tmp, steps):
    """The same training in one process, from scratch: its stdout."""
    script = write_script(os.path.join(tmp, "local.tfg"), local=True)
    r = subprocess.run([tfg, "--quiet", "--threads", "1", "--", script, str(steps), os.path.join(tmp, "local_ckpt")],
                       capture_output=True, text=True, timeout=300)
    if r.returncode != 0:
        raise AssertionError("the local run failed:\n" + r.stderr)
    for f in os.listdir(os.path.join(tmp, "local_ckpt")):
        os.remove(os.path.join(tmp, "local_ckpt", f))
    return r.stdout


def lost_steps(master_stderr):
    """Steps the recoveries lost, summed. Two recoveries in a row that
    restored the same checkpoint and lost as many steps saw no step done in
    between (steps done only grow): the second lost nothing more."""
    total, previous = 0, None
    for m in re.finditer(RECOVERED, master_stderr):
        if (m.group(3), m.group(4)) != previous:
            total += int(m.group(4))
        previous = (m.group(3), m.group(4))
    return total


def newest_checkpoint(ckpt_dir):
    if not os.path.isdir(ckpt_dir):
        return -1
    steps = [int(m.group(1)) for f in os.listdir(ckpt_dir) for m in [re.match(r"model-(\d+)$", f)] if m]
    return max(steps, default=-1)


class Progress:
    """The newest checkpoint of a directory, watched on a thread every
    2 ms: when training moved on (a checkpoint at a step beyond those
    before) can be told after the fact."""

    def __init__(self, ckpt_dir):
        self.dir = ckpt_dir
        self.seen = []  # (monotonic time, newest checkpoint step) at each change
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self):
        last = None
        while not self._stop.is_set():
            step = newest_checkpoint(self.dir)
            if step != last:
                self.seen.append((time.monotonic(), step))
                last = step
            time.sleep(0.002)

    def stop(self):
        self._stop.set()
        self._thread.join()

    def moved_on_after(self, moment):
        """When the first checkpoint newer than every one seen by `moment`
        appeared (None: none did)."""
        before = max([step for t, step in self.seen if t <= moment], default=-1)
        return next((t for t, step in self.seen if t > moment and step > before), None)
