#!/usr/bin/env python3
"""Worker mode's security, file confinement and transfer compression, end to
end with real processes on loopback ports they pick themselves:
`--curve-keys` (authorized, unauthorized and plain masters), `--data-dir`
and `--compress-transfers` with the byte counts of `--stats`.

usage: security_test.py TFG_BINARY
"""

import os
import re
import shutil
import stat
import sys
import time
import unittest

import worker_test
from worker_test import WorkerFixture

# Refusals must come in bounded time: the 5 s handshake limit and start-up.
REFUSAL_SECONDS = 30
# CURVE on one side only. Which side hangs up first is a race: the master
# may read the mismatch from the worker's greeting, or see only that the
# connection broke, in every attempt in a row.
MISMATCH = (r"refused the connection: (it does not use CURVE security|it broke off \d+ handshakes in a row "
            r"\(--curve-keys on one side only)")


class SecurityTest(WorkerFixture):
    prefix = "tfg_sec_"

    @staticmethod
    def read(path):
        with open(path) as f:
            return f.read()

    def keygen(self, name):
        d = os.path.join(self.dir, name)
        r = self.run_tfg("keygen", d)
        self.assertEqual(r.returncode, 0, r.stderr)
        return d

    # ------------------------------------------------------------------ keys

    def test_keygen_writes_the_layout_and_keeps_existing_keys(self):
        d = self.keygen("keys")
        for f in ["server.key", "server.pub", "client.key", "client.pub", "authorized/client.pub"]:
            self.assertTrue(os.path.isfile(os.path.join(d, f)), f)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(d, "server.key")).st_mode), 0o600)
        self.assertEqual(stat.S_IMODE(os.stat(os.path.join(d, "client.key")).st_mode), 0o600)
        with open(os.path.join(d, "client.pub")) as f, open(os.path.join(d, "authorized/client.pub")) as g:
            self.assertEqual(f.read().split("\n")[1], g.read().split("\n")[1])
        before = self.read(os.path.join(d, "server.key"))
        again = self.run_tfg("keygen", d)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertIn("exist already", again.stdout)
        self.assertEqual(self.read(os.path.join(d, "server.key")), before)

    def test_bad_key_files_are_named(self):
        missing = os.path.join(self.dir, "nowhere")
        r = self.run_tfg("--curve-keys", missing, self.script("print(1)\n"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("CURVE key file '%s/server.key': No such file or directory" % missing, r.stderr)
        d = self.keygen("keys")
        os.chmod(os.path.join(d, "client.key"), 0o644)
        r = self.run_tfg("--curve-keys", d, self.script("print(1)\n"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("'%s/client.key': a secret key readable by others (mode 644)" % d, r.stderr)
        os.chmod(os.path.join(d, "client.key"), 0o600)
        with open(os.path.join(d, "authorized", "bad.pub"), "w") as f:
            f.write("not a key\n")
        r = self.run_tfg("--curve-keys", d, self.script("print(1)\n"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("'%s/authorized/bad.pub': not a CURVE key" % d, r.stderr)

    def test_a_fifo_or_device_as_a_key_file_fails_at_once(self):
        d = self.keygen("keys")
        os.remove(os.path.join(d, "server.key"))
        os.mkfifo(os.path.join(d, "server.key"), 0o600)
        started = time.monotonic()
        r = self.run_tfg("--curve-keys", d, self.script("print(1)\n"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("CURVE key file '%s/server.key': it is a FIFO (named pipe), not a regular file" % d, r.stderr)
        os.remove(os.path.join(d, "server.key"))
        os.symlink("/dev/zero", os.path.join(d, "server.key"))
        r = self.run_tfg("--curve-keys", d, self.script("print(1)\n"))
        self.assertEqual(r.returncode, 2)
        self.assertIn("CURVE key file '%s/server.key': it is a character device" % d, r.stderr)
        self.assertLess(time.monotonic() - started, REFUSAL_SECONDS)

    # ---------------------------------------------------------------- CURVE

    def test_authorized_master_trains_with_curve(self):
        keys = self.keygen("keys")
        ps, w0, w1 = (self.worker("--curve-keys", keys) for _ in range(3))
        path = self.script(worker_test.WorkerTest.TRAINING)
        dist = self.run_tfg("--curve-keys", keys, "--threads", "1", "--seed", "3", path,
                            ps.address, w0.address, w1.address)
        local = self.run_tfg("--threads", "1", "--seed", "3", path)
        self.assertEqual(dist.returncode, 0, dist.stderr)
        self.assertEqual(dist.stdout, local.stdout)
        losses, _, _ = worker_test.WorkerTest.sgd_reference(None)
        for got, want in zip(dist.stdout.split("\n")[:5], losses):
            self.assertAlmostEqual(float(got), want, places=4)
        self.assertIn("CURVE security on", ps.stderr())

    def refused(self, worker, *master_flags, at_once=False):
        path = self.script('cluster({"worker": ["%s"]})\nprint("not here")\n' % worker.address, "m.tfg")
        start = time.monotonic()
        r = self.run_tfg(*master_flags, path)
        took = time.monotonic() - start
        self.assertLess(took, REFUSAL_SECONDS)
        if at_once:
            # A refusal that trying again cannot mend ends the handshake
            # without waiting out its 5 s: the master takes no more than
            # a run without a cluster (start-up, which ASan slows) and 3 s.
            plain = self.script('print("alone")\n', "alone.tfg")
            start = time.monotonic()
            self.assertEqual(self.run_tfg(*master_flags, plain).returncode, 0)
            self.assertLess(took, time.monotonic() - start + 3.0)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, "")
        self.assertIn("m.tfg:1:", r.stderr)
        self.assertIn("task /job:worker/replica:0/task:0 ", r.stderr)
        self.assertTrue(worker.alive())
        return r.stderr

    def test_master_with_another_clusters_keys_is_refused(self):
        keys, other = self.keygen("keys"), self.keygen("other")
        w = self.worker("--curve-keys", keys)
        err = self.refused(w, "--curve-keys", other)
        self.assertRegex(err, r"unreachable at tcp://127\.0\.0\.1:\d+ after 5 s|the CURVE handshake failed|"
                              r"refused the connection: it broke off \d+ handshakes in a row")

    def test_master_whose_client_key_is_not_authorized_is_refused(self):
        keys = self.keygen("keys")
        # The cluster's server keys, but a client key of its own that the
        # worker's authorized/ does not hold.
        stranger = os.path.join(self.dir, "stranger")
        os.makedirs(stranger)
        for f in ["server.key", "server.pub"]:
            shutil.copy2(os.path.join(keys, f), stranger)
        self.keygen("stranger")
        w = self.worker("--curve-keys", keys)
        err = self.refused(w, "--curve-keys", stranger, at_once=True)
        self.assertIn("refused the connection: not authorized", err)
        self.assertIn("its key is not in --curve-keys DIR/authorized", w.stderr())

    def test_plain_master_against_a_curve_worker_is_refused(self):
        w = self.worker("--curve-keys", self.keygen("keys"))
        err = self.refused(w, at_once=True)
        self.assertRegex(err, MISMATCH)

    def test_curve_master_against_a_plain_worker_is_refused(self):
        w = self.worker()
        err = self.refused(w, "--curve-keys", self.keygen("keys"), at_once=True)
        self.assertRegex(err, MISMATCH)

    # -------------------------------------------------------------- data-dir

    READER = """cluster({"worker": ["%s"]})
with device("/job:worker/task:0") {
  files = fifo_queue(4, [string])
  enq = enqueue_many(files, ["lines.txt", "%s"])
  key, line = read(text_line_reader(), files)
}
run(enq)
print(run(line))
print(run(line))
"""

    def test_worker_files_stay_under_data_dir(self):
        data = os.path.join(self.dir, "data")
        os.makedirs(data)
        with open(os.path.join(data, "lines.txt"), "w") as f:
            f.write("inside\n")
        outside = os.path.join(self.dir, "outside.txt")
        with open(outside, "w") as f:
            f.write("secret\n")
        os.symlink(outside, os.path.join(data, "link.txt"))
        w = self.worker("--data-dir", data)
        real = os.path.realpath(data)
        # The reader runs on the worker: "lines.txt" is taken under
        # --data-dir, not the worker's working directory.
        for name in [outside, "link.txt", "../outside.txt"]:
            r = self.run_tfg(self.script(self.READER % (w.address, name)))
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertEqual(r.stdout, "inside\n")
            self.assertIn("the path '%s' is outside this worker's --data-dir %s" % (name, real), r.stderr)
            self.assertIn("s.tfg:5:", r.stderr)  # the read node's line
            self.assertNotIn("secret", r.stdout + r.stderr)
        self.assertTrue(w.alive())

    # ----------------------------------------------------------- compression

    COMPRESS = """
cluster({"ps": [argv[0]], "worker": [argv[1]]})
with device("/job:ps/task:0") { w = variable(ones([512, 512]) * 0.1) }
with device("/job:worker/task:0") { s = sum(w * w) }
init()
for i in range(4) { total = run(s) }
print(total)
"""

    def traffic(self, stderr):
        m = re.search(r"network: [\d.]+ MiB sent, [\d.]+ MiB received \((\d+) and (\d+) bytes\)", stderr)
        self.assertIsNotNone(m, stderr)
        return int(m.group(1)), int(m.group(2))

    def run_compress(self, *flags):
        ps, w = self.worker("--stats"), self.worker()
        r = self.run_tfg("--stats", *flags, self.script(self.COMPRESS), ps.address, w.address)
        self.assertEqual(r.returncode, 0, r.stderr)
        ps.stop()  # it prints its traffic as it stops
        with open(ps.log_path) as f:
            return float(r.stdout), self.traffic(f.read())

    def test_compressed_transfers_halve_the_bytes(self):
        whole, (whole_sent, _) = self.run_compress()
        half, (half_sent, _) = self.run_compress("--compress-transfers")
        # 0.1f is 0x3dcccccd; its upper 16 bits, 0x3dcc, are 0.099609375.
        # So the sum of 512*512 squares is 2621.44 whole and 2601 truncated.
        self.assertAlmostEqual(whole / 2621.44, 1.0, places=4)
        self.assertAlmostEqual(half / 2601.0, 1.0, places=4)
        # The ps sent w (1 MiB) to the worker once per run: 4 runs.
        self.assertGreater(whole_sent, 4 * 262144 * 4)
        print("\nps sent %d bytes whole, %d compressed (%.1f%%)" % (whole_sent, half_sent, 100.0 * half_sent / whole_sent),
              file=sys.stderr)
        self.assertLess(half_sent, 0.55 * whole_sent)
        self.assertGreater(half_sent, 4 * 262144 * 2)


if __name__ == "__main__":
    worker_test.TFG = os.path.abspath(sys.argv.pop(1))
    unittest.main()
