"""A tfg cluster on the hosts of netns.Network: a ps, two workers and a
master, each in its own namespace, on the hosts' private addresses. Output
lines are read as they come and stamped with the time they arrived, so a
test can measure when the master noticed something.
"""

import json
import os
import re
import subprocess
import threading
import time

PORT = 7001          # every task listens on this port of its own host
MASTER_PORT = 7000
HOSTS = ["ps", "w0", "w1", "master"]
DEADLINE = 300       # seconds any one process may take


class Lines:
    """A pipe read on a thread: each line with its arrival time."""

    def __init__(self, pipe):
        self.lines = []  # (monotonic time, text)
        self.cv = threading.Condition()
        self.thread = threading.Thread(target=self._read, args=(pipe,), daemon=True)
        self.thread.start()

    def _read(self, pipe):
        for line in pipe:
            with self.cv:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                self.cv.notify_all()
        with self.cv:
            self.lines.append((time.monotonic(), None))  # EOF
            self.cv.notify_all()

    def text(self):
        with self.cv:
            return "\n".join(l for _, l in self.lines if l is not None)

    def wait_for(self, pattern, timeout, after=0.0):
        """The first line matching `pattern` that arrived after `after`:
        (time, match), or None on EOF or timeout."""
        end = time.monotonic() + timeout
        rx = re.compile(pattern)
        with self.cv:
            while True:
                for t, line in self.lines:
                    if line is None:
                        if t >= after:
                            return None
                        continue
                    m = rx.search(line)
                    if m and t >= after:
                        return t, m
                left = end - time.monotonic()
                if left <= 0:
                    return None
                self.cv.wait(left)


class Task:
    def __init__(self, host, proc):
        self.host = host
        self.proc = proc
        self.out = Lines(proc.stdout)
        self.err = Lines(proc.stderr)

    def alive(self):
        return self.proc.poll() is None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()


def address(host, port=PORT):
    return "tcp://%s:%d" % (host.address, port)


def cluster_flag(net):
    return "ps=%s,worker=%s;%s" % (address(net["ps"]), address(net["w0"]), address(net["w1"]))


def tf_config(net, task_type, index):
    """TF_CONFIG as Kubernetes' TFJob sets it (HOST:PORT, no scheme)."""
    hp = lambda name, port=PORT: "%s:%d" % (net[name].address, port)
    return json.dumps({"cluster": {"chief": [hp("master", MASTER_PORT)], "ps": [hp("ps")],
                                   "worker": [hp("w0"), hp("w1")]},
                       "task": {"type": task_type, "index": index}})


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TF_CONFIG", "SLURM_"))}
    env.update(extra)
    return env


def start_worker(tfg, host, *flags, env=None, use_flags=True):
    """`tfg --worker` on the host's address; waits for its first line."""
    argv = [tfg, "--worker", "--threads", "1", *flags]
    if use_flags:
        argv += ["--listen", address(host)]
    proc = host.popen(argv, env=env or clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    task = Task(host, proc)
    got = task.out.wait_for(r"^tfg worker listening on (\S+)$", 60)
    if got is None:
        task.kill()
        raise AssertionError("the worker on %s did not start:\n%s" % (host.name, task.err.text()))
    task.listening = got[1].group(1)
    return task


def start_master(tfg, net, script, args, *flags, env=None, use_flags=True):
    argv = [tfg, "--quiet", "--threads", "1", *flags]
    if use_flags:
        argv += ["--cluster", cluster_flag(net), "--master-listen", address(net["master"], MASTER_PORT)]
    argv += ["--", script, *[str(a) for a in args]]
    proc = net["master"].popen(argv, env=env or clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    return Task(net["master"], proc)


def finish(task, timeout=DEADLINE):
    """Waits for the master; its exit code, stdout and stderr."""
    try:
        task.proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        task.kill()
        raise AssertionError("the master hung for %d s:\n%s" % (timeout, task.err.text()))
    task.out.thread.join(10)
    task.err.thread.join(10)
    return task.proc.returncode, task.out.text(), task.err.text()
