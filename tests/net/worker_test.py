#!/usr/bin/env python3
"""Worker mode end to end: real `tfg --worker` processes on loopback ports
they pick themselves (--listen tcp://127.0.0.1:0, the bound address read
from their first line), a master script run against them, and every
process killed at the end of each test.

usage: worker_test.py TFG_BINARY
"""

import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import unittest


TFG = None
DEADLINE = 60  # seconds any one process may take


class Worker:
    """A `tfg --worker` process listening at `listen`: by default a port it
    picks itself; a fixed address lets a test start it again there (the
    recovery tests). stderr goes to a file the test can read."""

    def __init__(self, tmp, *flags, listen="tcp://127.0.0.1:0"):
        self.log_path = os.path.join(tmp, "worker-%d.log" % time.monotonic_ns())
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([TFG, "--worker", "--listen", listen, "--threads", "1", *flags],
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.proc.stdout.readline()
        m = re.match(r"tfg worker listening on (tcp://127\.0\.0\.1:\d+)$", line.strip())
        if not m:
            self.stop()
            raise AssertionError("worker did not start: %r" % line)
        self.address = m.group(1)
        self.port = int(self.address.rsplit(":", 1)[1])

    def stderr(self):
        self.log.flush()
        with open(self.log_path) as f:
            return f.read()

    def alive(self):
        return self.proc.poll() is None

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdout.close()
        self.log.close()


def zmtp_dealer(port):
    """A ZeroMQ DEALER speaking ZMTP 3.0 by hand (pyzmq is not a dependency):
    the greeting and READY command, after which frames reach the ROUTER."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + b"\x00" * 31
    s.sendall(greeting)
    got = b""
    while len(got) < 64:
        chunk = s.recv(64 - len(got))
        if not chunk:
            raise AssertionError("no ZMTP greeting")
        got += chunk
    prop = b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
    body = b"\x05READY" + prop
    s.sendall(b"\x04" + bytes([len(body)]) + body)
    return s


def zmtp_frame(payload, more=False):
    flags = 0x01 if more else 0x00
    if len(payload) < 256:
        return bytes([flags, len(payload)]) + payload
    return bytes([flags | 0x02]) + struct.pack(">Q", len(payload)) + payload


# net/protocol.h: kMagic and kProtocolVersion.
MAGIC = 0x4E474654
PROTOCOL = 4


def varint(n):
    """An unsigned integer as the wire's LEB128 varint."""
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def zigzag(n):
    return (n << 1) ^ (n >> 63)


class WorkerFixture(unittest.TestCase):
    """A scratch directory, the workers a test starts (always stopped), and
    master runs of scripts written there; shared with security_test."""
    prefix = "tfg_net_"

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix=self.prefix)
        self.workers = []

    def tearDown(self):
        for w in self.workers:
            w.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def worker(self, *flags):
        w = Worker(self.dir, *flags)
        self.workers.append(w)
        return w

    def script(self, text, name="s.tfg"):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def run_tfg(self, *args, **kw):
        return subprocess.run([TFG, "--quiet", *args], capture_output=True, text=True, timeout=DEADLINE, **kw)


class WorkerTest(WorkerFixture):
    # ---------------------------------------------------------------- results

    def test_matmul_on_a_worker_equals_local(self):
        w = self.worker()
        text = """
a = placeholder(f32, [2, 2])
with device(DEV) { c = a @ constant([[5.0, 6.0], [7.0, 8.0]]) + 1.0 }
print(run(c, feed={a: [[1.0, 2.0], [3.0, 4.0]]}))
print(run(c, feed={a: [[0.5, 0.0], [0.0, 2.0]]}))
"""
        remote = self.run_tfg("--cluster", "worker=" + w.address,
                              self.script(text.replace("DEV", '"/job:worker/task:0"'), "r.tfg"))
        local = self.run_tfg(self.script(text.replace("DEV", '""'), "l.tfg"))
        self.assertEqual(remote.returncode, 0, remote.stderr)
        self.assertEqual(local.returncode, 0, local.stderr)
        # [[1,2],[3,4]] @ [[5,6],[7,8]] = [[19,22],[43,50]], plus 1
        self.assertEqual(remote.stdout, "[[20. 23.]\n [44. 51.]]\n[[ 3.5  4. ]\n [15.  17. ]]\n")
        self.assertEqual(remote.stdout, local.stdout)

    TRAINING = """
ps = ""
workers = ["", ""]
if len(argv) > 0 {
  cluster({"ps": [argv[0]], "worker": [argv[1], argv[2]]})
  ps = "/job:ps/task:0"
  workers = ["/job:worker/task:0", "/job:worker/task:1"]
}
with device(ps) {
  w = variable([[0.5], [-0.25], [1.0]], name="w")
  b = variable([0.1], name="b")
}
x = placeholder(f32, [?, 3])
y = placeholder(f32, [?, 1])
with device(workers[0]) { h0 = x[0:2] @ w + b }
with device(workers[1]) { h1 = x[2:4] @ w + b }
pred = concat([h0, h1], 0)
loss = mean((pred - y) * (pred - y))
train = minimize(loss, sgd(0.05))
init()
xs = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [-1.5, 0.25, 1.0], [2.0, 1.0, -0.5]]
ys = [[1.0], [2.0], [-1.0], [0.5]]
for step in range(5) {
  _, l = run([train, loss], feed={x: xs, y: ys})
  print(l)
}
print(run(w))
print(run(b))
"""

    def sgd_reference(self):
        """The same five steps in float64, by hand (no NumPy needed)."""
        xs = [[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [-1.5, 0.25, 1.0], [2.0, 1.0, -0.5]]
        ys = [1.0, 2.0, -1.0, 0.5]
        w = [0.5, -0.25, 1.0]
        b = 0.1
        losses = []
        for _ in range(5):
            pred = [sum(xi * wi for xi, wi in zip(x, w)) + b for x in xs]
            err = [p - y for p, y in zip(pred, ys)]
            losses.append(sum(e * e for e in err) / len(xs))
            g = [2 * e / len(xs) for e in err]  # d loss / d pred
            w = [wj - 0.05 * sum(g[i] * xs[i][j] for i in range(len(xs))) for j, wj in enumerate(w)]
            b = b - 0.05 * sum(g)
        return losses, w, b

    def test_ps_and_two_workers_train_like_one_process(self):
        ps, w0, w1 = self.worker(), self.worker(), self.worker()
        path = self.script(self.TRAINING)
        dist = self.run_tfg("--threads", "1", "--seed", "3", path, ps.address, w0.address, w1.address)
        local = self.run_tfg("--threads", "1", "--seed", "3", path)
        self.assertEqual(dist.returncode, 0, dist.stderr)
        self.assertEqual(local.returncode, 0, local.stderr)
        self.assertEqual(dist.stdout, local.stdout)  # bit for bit, as printed
        losses, w, b = self.sgd_reference()
        lines = dist.stdout.split("\n")
        for got, want in zip(lines[:5], losses):
            self.assertAlmostEqual(float(got), want, places=4)
        printed_w = [float(v) for v in re.findall(r"-?\d+\.\d*(?:e-?\d+)?", " ".join(lines[5:8]))]
        self.assertEqual(len(printed_w), 3, dist.stdout)
        for got, want in zip(printed_w, w):
            self.assertAlmostEqual(got, want, places=5)
        self.assertAlmostEqual(float(lines[8].strip("[]")), b, places=5)
        # The variables lived on the ps task: its log names the session.
        self.assertIn("as /job:ps/replica:0/task:0", ps.stderr())

    def test_check_and_placed_graph_need_no_workers(self):
        path = self.script("""cluster({"ps": ["tcp://127.0.0.1:1"]})
with device("/job:ps/task:0") { w = variable([1.0, 2.0], name="w") }
y = w * 2.0
print(run(y))
""")
        r = self.run_tfg("check", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        g = self.run_tfg("graph", path, "--placed")
        self.assertEqual(g.returncode, 0, g.stderr)
        self.assertIn("/job:ps/replica:0/task:0/device:cpu:0", g.stdout)

    # ----------------------------------------------------------------- errors

    def test_unreachable_task(self):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()  # nobody listens there now
        r = self.run_tfg(self.script('cluster({"worker": ["tcp://127.0.0.1:%d"]})\nprint("not here")\n' % port))
        self.assertEqual(r.returncode, 1)
        self.assertIn("task /job:worker/replica:0/task:0 unreachable at tcp://127.0.0.1:%d after 5 s" % port,
                      r.stderr)
        self.assertIn("s.tfg:1:", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_op_error_on_a_worker_names_line_and_task(self):
        w = self.worker()
        path = self.script("""x = placeholder(f32, [?])
cluster({"worker": ["%s"]})
with device("/job:worker/task:0") {
  y = reshape(x, [2, 2])
}
print(run(y, feed={x: [1.0, 2.0, 3.0]}))
""" % w.address)
        r = self.run_tfg(path)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("s.tfg:4:", r.stderr)
        self.assertIn("y = reshape(x, [2, 2])", r.stderr)
        self.assertIn("(on task /job:worker/replica:0/task:0)", r.stderr)
        self.assertTrue(w.alive())

    def test_a_part_failing_at_once_on_a_first_run_ends_the_others(self):
        # The ps part fails at once, while the worker's part waits for its
        # tensor: every run() must end with the ps's error. Each is the
        # first of its signature (the parts are registered then). The race
        # this once lost, an AbortStep handled before the step it aborts
        # had started, is pinned in tests/interp/distributed/worker_abort_test.cc.
        ps, w = self.worker(), self.worker()
        path = self.script("""cluster({"ps": ["%s"], "worker": ["%s"]})
failed = 0
for k in range(20) {
  with device("/job:ps/task:0") { m = div(constant(7), constant(k - k)) }
  with device("/job:worker/task:0") { y = m * 2 }
  try { run(y, timeout=20) } except InvalidArgument { failed += 1 }
}
print(failed)
""" % (ps.address, w.address))
        r = self.run_tfg(path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "20\n")

    # ---------------------------------------------------------------- liveness

    def test_killed_worker_fails_the_step_naming_it(self):
        w = self.worker()
        path = self.script("""cluster({"worker": ["%s"]}, heartbeat=0.5)
with device("/job:worker/task:0") {
  q = fifo_queue(capacity=2, dtypes=[f32], shapes=[[]])
  v = dequeue(q)
}
print("ready")
print(run(v))
""" % w.address)
        master = subprocess.Popen([TFG, "--quiet", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(master.stdout.readline(), "ready\n")
            time.sleep(0.3)  # let the step reach the worker's dequeue
            w.proc.send_signal(signal.SIGKILL)
            w.proc.wait()
            out, err = master.communicate(timeout=DEADLINE)
        finally:
            if master.poll() is None:
                master.kill()
                master.wait()
        self.assertEqual(master.returncode, 1, err)
        self.assertIn("task /job:worker/replica:0/task:0 at %s stopped answering heartbeats" % w.address, err)

    def test_worker_drops_a_dead_masters_state(self):
        # Intervals with room for a loaded machine (sanitizer builds): a
        # live worker must not look dead before the master is killed.
        w = self.worker("--master-timeout", "2")
        path = self.script("""cluster({"worker": ["%s"]}, heartbeat=0.5)
with device("/job:worker/task:0") { v = variable([1.0, 2.0]) }
init()
print("ready")
q = fifo_queue(capacity=1, dtypes=[f32], shapes=[[]])
run(dequeue(q))
""" % w.address)
        master = subprocess.Popen([TFG, "--quiet", "--hang-timeout", "0", path], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(master.stdout.readline(), "ready\n")
            master.send_signal(signal.SIGKILL)
            master.wait()
        finally:
            if master.poll() is None:
                master.kill()
                master.wait()
            master.stdout.close()
            master.stderr.close()
        for _ in range(200):
            if "dropped with its state" in w.stderr():
                break
            time.sleep(0.05)
        self.assertIn("dropped with its state: no word from its master for 2 s", w.stderr())
        self.assertTrue(w.alive())

    def test_garbage_on_the_socket_is_survived(self):
        w = self.worker()
        # Well-framed ZMTP carrying malformed tfg messages: refused and logged.
        # A message starts with cereal's endianness byte (1: little-endian),
        # then magic, version and kind, fixed-width; the request id is a
        # varint and the session id is fixed-width again (net/wire.cc).
        def preamble(kind):
            return b"\x01" + struct.pack("<IHB", MAGIC, PROTOCOL, kind) + varint(1) + struct.pack("<Q", 1)
        valid_header = preamble(7)
        # A valid envelope (RunStep, empty reply address) whose body claims
        # more feeds than it holds, and one whose body stops short. The body:
        # graph handle, run id (zigzagged), seed (fixed), timeout, feeds.
        run_step = preamble(5) + varint(0)
        bad_bodies = [run_step + varint(1) + varint(zigzag(2)) + struct.pack("<Qd", 3, 0.5) + varint(1 << 40),
                      run_step + b"\x01\x02"]
        payloads = [b"", b"\x00", os.urandom(300), b"\x01" + struct.pack("<IHB", MAGIC ^ 1, PROTOCOL, 1),
                    b"\x01" + struct.pack("<IHB", MAGIC, PROTOCOL, 99),
                    b"\x01" + struct.pack("<IHB", MAGIC, PROTOCOL + 1, 1), valid_header,
                    valid_header + varint(1 << 62), *bad_bodies]
        d = zmtp_dealer(w.port)
        # The random payload may be refused for its byte order too, and
        # refusals of one kind are logged 20 at once, then one a second:
        # the two short ones go first, and their refusals are seen, before
        # the rest can use up that budget.
        for p in payloads[:2]:
            d.sendall(zmtp_frame(p))
        for _ in range(200):
            if "byte order 0 (" in w.stderr():
                break
            time.sleep(0.05)
        for p in payloads[2:]:
            d.sendall(zmtp_frame(p))
        # A Tensor message whose f32[2048] comes in a frame of its own:
        # without that frame, with one of the wrong size, and with a frame
        # too many after it.
        # Empty reply address, run id 1, empty names, frame and iteration 0,
        # neither dead nor compressed; then dtype f32, rank 1, dim 2048, attached.
        attached = (valid_header + varint(0) + varint(zigzag(1)) + bytes(7) +
                    bytes([2]) + varint(1) + varint(zigzag(2048)) + b"\x01")
        d.sendall(zmtp_frame(attached))
        d.sendall(zmtp_frame(attached, more=True) + zmtp_frame(b"\x00" * 4))
        d.sendall(zmtp_frame(attached, more=True) + zmtp_frame(b"\x00" * 8192, more=True) + zmtp_frame(b"x"))
        expected = ["byte order 0 (tfg peers write 1, little-endian)", "bad magic", "unknown message kind 99",
                    "protocol version %d (this tfg speaks %d)" % (PROTOCOL + 1, PROTOCOL),
                    "tensor list: 1099511627776 elements, more than the message holds",
                    "reply address: 4611686018427387904 elements, more than the message holds",
                    "a tensor's frame is missing", "a tensor of 8192 bytes arrived in a frame of 4",
                    "1 frames after the end of a Tensor message"]
        # Closing with the worker's READY unread would reset the connection
        # and lose the frames still in flight: wait for them to be read.
        for _ in range(200):
            if all(e in w.stderr() for e in expected):
                break
            time.sleep(0.05)
        d.close()
        self.assertTrue(w.alive())
        log = w.stderr()
        self.assertIn("refused a message", log)
        for e in expected:
            self.assertIn(e, log)
        # Raw bytes that are not even ZMTP: ZeroMQ closes the connection, or
        # reads them as legacy ZMTP/1.0 frames and the worker refuses those.
        # Sent last: their refusals share the log's per-kind budget (20
        # lines, then one a second) with the ones expected above, and when
        # they came first they could use it up before "byte order 0".
        raw = socket.create_connection(("127.0.0.1", w.port), timeout=5)
        raw.sendall(os.urandom(4096))
        raw.close()
        # ...and it still serves a master.
        r = self.run_tfg("--cluster", "worker=" + w.address, self.script(
            'with device("/job:worker/task:0") { c = constant([1.0, 2.0]) * 3.0 }\nprint(run(c))\n'))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "[3. 6.]\n")

    def test_worker_stops_on_sigterm(self):
        w = self.worker()
        w.proc.send_signal(signal.SIGTERM)
        self.assertEqual(w.proc.wait(timeout=DEADLINE), 0)
        self.assertEqual(w.proc.stdout.readline(), "tfg worker stopped\n")


if __name__ == "__main__":
    TFG = os.path.abspath(sys.argv.pop(1))
    unittest.main()
