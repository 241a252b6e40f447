#!/usr/bin/env python3
"""scripts/cluster-demo end to end: 1 ps + 2 workers on free loopback
ports, examples/distributed_mnist.tfg trained on a small part of
Fashion-MNIST against them; the accuracy beats a stated bound, the
cluster run computes what the same graph computes in one process, and
the workers are gone afterwards, also when the demo is interrupted.

usage: cluster_demo_test.py TFG_BINARY
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

TFG = None
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEMO = os.path.join(ROOT, "scripts", "cluster-demo")
EXAMPLE = os.path.join(ROOT, "examples", "distributed_mnist.tfg")
DATA = "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz"
DEADLINE = 240
# 1 epoch of 3000 training images (23 synchronous steps of 128): about 72%
# on the first 1000 test images; 60% leaves room for another seed.
SMALL_RUN = ["1", "3000", "0.6", "1000"]


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@unittest.skipUnless(os.path.exists(DATA), "Fashion-MNIST is not installed (scripts/setup)")
class ClusterDemoTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tfg_demo_")
        self.env = dict(os.environ, TFG=TFG, TMPDIR=self.dir, TFG_FLAGS="--quiet --threads 1 --seed 7",
                        TFG_WORKER_FLAGS="--threads 1")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def worker_pids(self, stderr):
        pids = [int(p) for p in re.findall(r"^cluster-demo: \w+ task at tcp://127\.0\.0\.1:\d+ \(pid (\d+)\)$",
                                           stderr, re.M)]
        self.assertEqual(len(pids), 3, stderr)
        return pids

    def assertWorkersGone(self, pids):
        for pid in pids:
            self.assertFalse(alive(pid), "worker %d still runs" % pid)
        self.assertEqual([f for f in os.listdir(self.dir) if f.startswith("tfg-cluster-demo")], [])

    def test_demo_trains_beyond_the_bound_and_stops_its_workers(self):
        r = subprocess.run([DEMO, *SMALL_RUN], capture_output=True, text=True, timeout=DEADLINE, env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        m = re.fullmatch(r"epoch 1 test accuracy ([\d.]+) loss [\d.]+\n", r.stdout)
        self.assertIsNotNone(m, r.stdout)
        self.assertGreaterEqual(float(m.group(1)), 0.6)
        self.assertWorkersGone(self.worker_pids(r.stderr))

    def test_cluster_run_equals_one_process_run(self):
        # The same graph, seeds and batches: with one thread per process
        # the sums run in one order, so the numbers agree to the last digit.
        r = subprocess.run([DEMO, "2", "1280", "0", "500"], capture_output=True, text=True, timeout=DEADLINE,
                           env=self.env)
        self.assertEqual(r.returncode, 0, r.stderr)
        local = subprocess.run([TFG, "--quiet", "--threads", "1", "--seed", "7", "--", EXAMPLE, "2", "1280", "0",
                                "500", os.path.join(self.dir, "ckpt"), "local"],
                               capture_output=True, text=True, timeout=DEADLINE)
        self.assertEqual(local.returncode, 0, local.stderr)
        self.assertEqual(len(r.stdout.splitlines()), 2, r.stdout)
        self.assertEqual(r.stdout, local.stdout)

    def test_interrupted_demo_stops_its_workers(self):
        # Ctrl-C reaches the terminal's whole process group: do the same.
        p = subprocess.Popen([DEMO, "50"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=self.env, start_new_session=True)
        try:
            lines = []
            while len(lines) < 3:
                line = p.stderr.readline()
                self.assertTrue(line, "the demo ended early: %s" % "".join(lines))
                if line.startswith("cluster-demo: "):
                    lines.append(line)
            time.sleep(1)  # training now
            os.killpg(p.pid, signal.SIGINT)
            p.wait(timeout=60)
        finally:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            p.stdout.close()
            p.stderr.close()
        self.assertNotEqual(p.returncode, 0)
        self.assertWorkersGone(self.worker_pids("".join(lines)))


if __name__ == "__main__":
    TFG = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
