#!/usr/bin/env python3
"""The tfg command line: help, version, usage errors, check, graph, missing
files, script arguments, stdin scripts, exit codes and Ctrl-C.

usage: cli_test.py TFG_BINARY
"""

import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unittest

TFG = None


def run(*args, stdin=None, cwd=None, timeout=60):
    return subprocess.run([TFG, *args], input=stdin, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=dict(os.environ, TFG_HISTORY=""))


def badly_nested_spans(events):
    """Pairs of complete spans on one thread row that overlap without one
    containing the other (a viewer draws them wrongly)."""
    rows = {}
    for e in events:
        if e.get("ph") == "X":
            rows.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
    bad = []
    for spans in rows.values():
        open_ends = []  # ends of the spans containing the current one
        for start, end, name in sorted(spans, key=lambda s: (s[0], -s[1])):
            while open_ends and open_ends[-1][0] <= start + 1e-3:
                open_ends.pop()
            if open_ends and end > open_ends[-1][0] + 1e-3:
                bad.append((open_ends[-1][1], name))
            open_ends.append((end, name))
    return bad


class CliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="tfg_cli_")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def script(self, text, name="s.tfg"):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def assertUsageError(self, r, message):
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn(message, r.stderr)
        self.assertIn("usage: tfg", r.stderr)
        self.assertEqual(r.stdout, "")

    # ------------------------------------------------------------ help/version

    def test_help(self):
        for flag in ("--help", "-h"):
            r = run(flag)
            self.assertEqual(r.returncode, 0)
            self.assertTrue(r.stdout.startswith("usage: tfg"))
            for option in ("--threads", "--seed", "--quiet", "check", "graph"):
                self.assertIn(option, r.stdout)

    def test_help_lists_every_command(self):
        # Every command interp/app/cli.cc and interp/interop/interop_cli.cc
        # dispatch on, in the synopsis (and so in the man page made from it).
        usage = run("--help").stdout
        for command in ("tfg [options] FILE", "tfg [options]  ", "tfg [options] check FILE",
                        "tfg [options] graph FILE --dot", "tfg doc ops", "tfg --worker --listen ADDR",
                        "tfg keygen DIR", "tfg import MODEL.pb", "tfg export FILE.tfg", "tfg --help | --version"):
            self.assertIn(command, usage)

    def test_version(self):
        r = run("--version")
        self.assertEqual(r.returncode, 0)
        self.assertRegex(r.stdout, r"^tfg \d+\.\d+\.\d+\n$")

    # ---------------------------------------------------------- usage errors

    def test_unknown_option(self):
        self.assertUsageError(run("--frobnicate"), "unknown option '--frobnicate'")

    def test_bad_option_values(self):
        path = self.script("x = 1\n")
        self.assertUsageError(run("--threads", "many", path), "--threads")
        self.assertUsageError(run("--threads", "0", path), "--threads")
        self.assertUsageError(run("--seed", "-3", path), "--seed")
        self.assertUsageError(run("--seed"), "--seed needs a value")
        self.assertUsageError(run("--worker", "--listen", "garbage"), "'garbage' is not an address")
        self.assertUsageError(run("--worker", "--listen", "tcp://127.0.0.1:99999"), "is not an address")
        self.assertUsageError(run("graph", path, "--optimized", "--placed"), "--optimized or --placed, not both")

    def test_check_needs_a_file(self):
        self.assertUsageError(run("check"), "check needs a FILE")

    def test_missing_file(self):
        r = run("no_such_script.tfg", cwd=self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "tfg: cannot open 'no_such_script.tfg': No such file or directory\n")
        r = run("check", "no_such_script.tfg", cwd=self.dir)
        self.assertEqual(r.returncode, 2)

    def test_directory_is_not_a_script(self):
        r = run(self.dir)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "tfg: cannot read '%s': it is a directory, not a regular file\n" % self.dir)

    def test_script_must_be_a_regular_file_of_at_most_64_mib(self):
        fifo = os.path.join(self.dir, "pipe.tfg")
        os.mkfifo(fifo)
        r = run(fifo, timeout=20)  # a FIFO nobody writes to used to block forever
        self.assertEqual((r.returncode, r.stderr),
                         (2, "tfg: cannot read '%s': it is a FIFO (named pipe), not a regular file\n" % fifo))
        r = run("/dev/zero", timeout=20)  # used to read until memory ran out and abort
        self.assertEqual((r.returncode, r.stderr),
                         (2, "tfg: cannot read '/dev/zero': it is a character device, not a regular file\n"))
        big = os.path.join(self.dir, "big.tfg")
        with open(big, "wb") as f:
            f.truncate(64 * 1024 * 1024 + 1)  # sparse: no disk used
        r = run(big, timeout=20)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "tfg: cannot read '%s': it is 67108865 bytes, more than the 67108864 that may be "
                                   "read (a script is at most 64 MiB)\n" % big)

    # ------------------------------------------------------------ files, memory

    def test_memory_limit_option(self):
        self.assertIn("--memory-limit BYTES", run("--help").stdout)
        for bad in ["4X", "0", "-1M", "1.5G"]:
            self.assertUsageError(run("--memory-limit", bad, "-"), "--memory-limit: '%s' is not" % bad)
        path = self.script("x = placeholder(f32, [?])\n"
                           "print(run(reduce_sum(tile(x, [4])), feed={x: [1.0, 2.0]}))\n"
                           "y = tile(x, [1048576])\n"
                           "print(run(reduce_sum(y), feed={x: [1.0, 2.0]}))\n")
        r = run("--memory-limit=4M", path)  # tile makes 8 MiB
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertEqual(r.stdout, "12.0\n")
        self.assertIn("s.tfg:3:5: error: tile 'tile_1': out of memory allocating f32 [2097152]", r.stderr)
        r = run("--memory-limit", "64M", path)
        self.assertEqual((r.returncode, r.stdout), (0, "12.0\n3.145728e+06\n"), r.stderr)

    def test_worker_out_of_memory_fails_the_step_and_keeps_serving(self):
        worker = subprocess.Popen([TFG, "--worker", "--listen", "tcp://127.0.0.1:0", "--threads", "1",
                                   "--memory-limit", "4M"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            address = re.match(r"tfg worker listening on (\S+)$", worker.stdout.readline().strip()).group(1)
            text = ('x = placeholder(f32, [?])\ncluster({"worker": ["%s"]})\n'
                    'with device("/job:worker/task:0") { y = tile(x, [%d]) }\n'
                    'print(run(reduce_sum(y), feed={x: [1.0, 2.0]}))\n')
            r = run("--quiet", self.script(text % (address, 1048576)))  # 8 MiB on the worker
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("s.tfg:3:", r.stderr)
            self.assertIn("out of memory allocating f32 [2097152]", r.stderr)
            self.assertIn("(on task /job:worker/replica:0/task:0)", r.stderr)
            r = run("--quiet", self.script(text % (address, 4)))
            self.assertEqual((r.returncode, r.stdout), (0, "12.0\n"), r.stderr)
            self.assertIsNone(worker.poll())
        finally:
            worker.terminate()
            worker.wait(timeout=20)
            worker.stdout.close()

    def test_readers_refuse_a_fifo_at_once(self):
        fifo = os.path.join(self.dir, "pipe")
        os.mkfifo(fifo)
        for call in ['load_npy("%s")', 'load_idx("%s")', 'load_csv("%s")',
                     'a = variable([1.0], name="a")\ninit()\nrestore("%s")']:
            r = run(self.script(call % fifo), timeout=20)
            self.assertEqual(r.returncode, 1, call)
            self.assertIn("cannot read %s'%s': it is a FIFO (named pipe), not a regular file"
                          % ("checkpoint " if "restore" in call else "", fifo), r.stderr)

    def test_writers_keep_a_fifo_and_write_through_a_symlink(self):
        fifo = os.path.join(self.dir, "pipe")
        os.mkfifo(fifo)
        for call in ['a = variable([1.0], name="a")\ninit()\nsave("%s")', 'save_npy("%s", [1.0])',
                     'write_records("%s", ["r"])']:
            r = run(self.script(call % fifo), timeout=20)
            self.assertEqual(r.returncode, 1, call)
            self.assertIn("cannot write '%s': it is a FIFO (named pipe), not a regular file" % fifo, r.stderr)
            self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode), call)
        target = os.path.join(self.dir, "real.npy")
        with open(target, "w") as f:
            f.write("old")
        link = os.path.join(self.dir, "link.npy")
        os.symlink(target, link)
        r = run(self.script('save_npy("%s", [1.0, 2.0])\nprint(load_npy("%s"))\n' % (link, target)))
        self.assertEqual((r.returncode, r.stdout), (0, "[1. 2.]\n"), r.stderr)
        self.assertTrue(os.path.islink(link))
        self.assertEqual(sorted(os.listdir(self.dir)), ["link.npy", "pipe", "real.npy", "s.tfg"])

    def test_trace_refuses_a_fifo(self):
        fifo = os.path.join(self.dir, "trace.json")
        os.mkfifo(fifo)
        r = run("--trace", fifo, self.script("print(1)\n"), timeout=20)
        self.assertEqual(r.returncode, 2)
        self.assertEqual(r.stderr, "tfg: --trace: cannot write '%s': it is a FIFO (named pipe), not a regular file; "
                                   "writers replace only regular files\n" % fifo)

    # ---------------------------------------------------------------- running

    def test_script_arguments(self):
        # Everything after FILE belongs to the script, options included.
        path = self.script("print(len(argv))\nfor a in argv { print(a) }\n")
        r = run("--seed", "7", path, "--seed", "3", "two words")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["3", "--seed", "3", "two words"])

    def test_seed_makes_runs_repeatable(self):
        path = self.script("print(run(random_uniform([4])))\n")
        first, again, other = run("--seed", "5", path), run("--seed", "5", path), run("--seed", "6", path)
        for r in (first, again, other):
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(first.stdout, again.stdout)
        self.assertNotEqual(first.stdout, other.stdout)

    def test_seed_makes_training_repeatable(self):
        # Issue 3: with --seed S --threads 1 two training runs print the same
        # losses: initializers, shuffling (data.batches) and dropout all draw
        # from the seeded streams.
        path = self.script(
            'import nn\nimport data\n'
            'xs = run(random_normal([64, 5], seed=1)); ys = run(cast(random_uniform([64], maxval=3, dtype=i32), i32))\n'
            'x = placeholder(f32, [?, 5]); y = placeholder(i32, [?])\n'
            'logits = nn.dense(nn.dropout(nn.dense(x, 16, act=relu), 0.2), 3)\n'
            'loss = mean(sparse_softmax_cross_entropy(logits, y))\n'
            'train = minimize(loss, adam(0.01))\n'
            'init()\n'
            'for epoch in range(3) {\n'
            '  for idx in data.batches(64, 16) {\n'
            '    _, l = run([train, loss], feed={x: xs[idx], y: ys[idx]}); print(l)\n'
            '  }\n'
            '}\n')
        args = ("--threads", "1", path)
        first, again = run("--seed", "5", *args), run("--seed", "5", *args)
        other = run("--seed", "6", *args)
        for r in (first, again, other):
            self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(len(first.stdout.split()), 12)
        self.assertEqual(first.stdout, again.stdout)
        self.assertNotEqual(first.stdout, other.stdout)

    def test_stats_table(self):
        # --stats counts every kernel execution per op type: three runs of
        # a matmul plus one eager add, and reports the CPU allocator.
        path = self.script('a = placeholder(f32, [2, 2])\nm = a @ a\n'
                           'for i in range(3) { run(m, feed={a: [[1, 2], [3, 4]]}) }\n'
                           'print([1, 2] + [3, 4])\n')
        r = run("--stats", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "[4 6]\n")
        rows = {line.split()[0]: line.split() for line in r.stderr.splitlines() if line.strip()}
        self.assertEqual(rows["op"][:2], ["op", "count"])
        self.assertEqual(rows["matmul"][1], "3")
        self.assertEqual(rows["add"][1], "1")
        self.assertRegex(r.stderr, r"memory cpu: [0-9.]+ MiB allocated in all, peak [0-9.]+ MiB in use")
        without = run(path)
        self.assertEqual(without.stderr, "")

    def test_trace_timeline(self):
        # --trace writes Chrome trace-event JSON: a span per kernel naming
        # its op, node and script line, a span per run() step, and tracks
        # named for the device and its threads.
        path = self.script('a = placeholder(f32, [2, 2], name="a")\nm = matmul(a, a, name="square")\n'
                           'for i in range(2) { run(m, feed={a: [[1, 2], [3, 4]]}) }\n')
        out = os.path.join(self.dir, "trace.json")
        r = run("--trace", out, path)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            events = json.load(f)["traceEvents"]
        kernels = [e for e in events if e.get("cat") == "kernel"]
        self.assertEqual([e["name"] for e in kernels], ["matmul", "matmul"])
        self.assertEqual(kernels[0]["args"], {"node": "square", "line": path + ":2",
                                              "step": kernels[0]["args"]["step"]})
        steps = [e for e in events if e.get("cat") == "step"]
        self.assertEqual(len(steps), 2)
        for k, s in zip(kernels, steps):  # each kernel inside its step, naming it
            self.assertEqual(s["name"], "step %d" % k["args"]["step"])
            self.assertGreaterEqual(k["ts"], s["ts"])
            self.assertLessEqual(k["ts"] + k["dur"], s["ts"] + s["dur"] + 1e-3)
        self.assertEqual(badly_nested_spans(events), [])
        names = {e["args"]["name"] for e in events if e["ph"] == "M"}
        self.assertIn("/device:cpu:0", names)
        # Split over two devices: a track each, and the transfer's _send and
        # _recv as spans of their own.
        split = self.script('a = placeholder(f32, [2], name="a")\n'
                            'with device("/device:cpu:0") { b = a * 2.0 }\n'
                            'with device("/device:cpu:1") { c = b + 1.0 }\n'
                            'run(c, feed={a: [1, 2]})\n')
        r = run("--local-devices", "cpu=2", "--trace", out, split)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out) as f:
            events = json.load(f)["traceEvents"]
        devices = {e["pid"]: e["args"]["name"] for e in events if e.get("name") == "process_name"}
        kernel_devices = {devices[e["pid"]] for e in events if e.get("cat") == "kernel"}
        self.assertEqual(len(kernel_devices), 2, kernel_devices)
        self.assertTrue(all(d.endswith(("cpu:0", "cpu:1")) for d in kernel_devices), kernel_devices)
        ops = {e["name"] for e in events if e.get("cat") == "kernel"}
        self.assertTrue({"_send", "mul", "add"} <= ops, ops)
        # The _recv waits on cpu:1 as an async slice (a begin/end pair),
        # not on the row of the thread that delivered its tensor.
        waits = [e for e in events if e.get("cat") == "wait"]
        self.assertEqual(sorted(e["ph"] for e in waits), ["b", "e"], waits)
        self.assertEqual({e["name"] for e in waits}, {"_recv"})
        self.assertTrue(devices[waits[0]["pid"]].endswith("cpu:1"), devices)
        begin, end = sorted(waits, key=lambda e: e["ph"])
        self.assertEqual(begin["id"], end["id"])
        self.assertLessEqual(begin["ts"], end["ts"])
        # A transfer carries the line of the tensor it moves (b, line 2).
        self.assertEqual(begin["args"]["line"], split + ":2")
        self.assertEqual(badly_nested_spans(events), [])
        # Both devices' kernels name the run's step, not their part's.
        step, = [e["name"] for e in events if e.get("cat") == "step"]
        self.assertEqual({"step %d" % e["args"]["step"] for e in events if e.get("cat") == "kernel"}, {step})
        threads = {e["args"]["name"] for e in events if e.get("name") == "thread_name"}
        self.assertIn("main", threads)
        # An unwritable trace path is a usage error before the script runs.
        bad = run("--trace", os.path.join(self.dir, "no", "such", "dir.json"), path)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--trace: cannot write", bad.stderr)
        self.assertEqual(bad.stdout, "")

    def test_log_placement_prints_each_node_once_per_signature(self):
        path = self.script('a = placeholder(f32, [2], name="a")\n'
                           'with device("/device:cpu:0") { b = mul(a, 2.0, name="b") }\n'
                           'with device("/device:cpu:1") { c = add(b, 1.0, name="c") }\n'
                           'print(run(c, feed={a: [1, 2]}))\n'
                           'print(run(c, feed={a: [3, 4]}))\n')
        r = run("--local-devices", "cpu=2", "--log-placement", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "[3. 5.]\n[7. 9.]\n")
        lines = [l for l in r.stderr.splitlines() if l.startswith("placement: ")]
        # a, b, c and the constants 2.0 and 1.0; the second run reuses the plan.
        self.assertEqual(len(lines), 5, r.stderr)
        dev = "/job:localhost/replica:0/task:0/device:cpu:"
        by_name = {l.split()[1]: l for l in lines}
        for name, op, device, line in [("a", "placeholder", 0, 1), ("b", "mul", 0, 2), ("c", "add", 1, 3)]:
            self.assertRegex(by_name[name], "^placement: %s \\(%s\\) on %s%d at %s:%d:[0-9]+$"
                             % (name, op, re.escape(dev), device, re.escape(path), line))
        consts = sorted(l.split(" on ")[1].split(" at ")[0] for l in lines if " (constant) on " in l)
        self.assertEqual(consts, [dev + "0", dev + "1"], lines)  # each under its with-device block
        quiet = run("--local-devices", "cpu=2", path)
        self.assertEqual(quiet.returncode, 0, quiet.stderr)
        self.assertNotIn("placement: ", quiet.stderr)
        # One device: every node on the CPU.
        one = run("--log-placement", self.script('x = placeholder(f32, [2], name="x")\n'
                                                 'print(run(mul(x, 3.0, name="y"), feed={x: [1, 2]}))\n', "one.tfg"))
        self.assertEqual(one.returncode, 0, one.stderr)
        self.assertEqual(one.stdout, "[3. 6.]\n")
        lines = [l for l in one.stderr.splitlines() if l.startswith("placement: ")]
        self.assertEqual(len(lines), 3, one.stderr)
        self.assertTrue(all(" on /job:localhost/task:0/device:cpu:0 at " in l for l in lines), lines)
        self.assertTrue(lines[0].startswith("placement: x (placeholder) on "), lines)

    def test_script_from_stdin(self):
        r = run("-", stdin="print(40 + 2)\n")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "42\n")

    def test_syntax_error_exit_code_and_caret(self):
        path = self.script('print("before")\ny = 1 + * 2\n')
        r = run(path)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "")  # nothing runs when the script does not parse
        self.assertCaretMatchesHeader(r.stderr, path, 2)

    def test_runtime_error_names_the_line(self):
        path = self.script('print("before")\nb = not_defined_anywhere * 2\n')
        r = run(path)
        self.assertEqual(r.returncode, 1)
        self.assertEqual(r.stdout, "before\n")  # output before the error is kept
        self.assertIn("not_defined_anywhere", r.stderr)
        self.assertCaretMatchesHeader(r.stderr, path, 2)

    def assertCaretMatchesHeader(self, stderr, path, line):
        lines = stderr.splitlines()
        m = re.match(re.escape(path) + r":(\d+):(\d+): error: ", lines[0])
        self.assertTrue(m, stderr)
        self.assertEqual(int(m.group(1)), line, stderr)
        col = int(m.group(2))
        excerpt = re.match(r"( *\d+ \| )(.*)$", lines[1])
        self.assertTrue(excerpt, stderr)
        caret = lines[2]
        self.assertEqual(caret.index("^") - len(excerpt.group(1)) + 1, col, stderr)

    def test_interrupt_exits_130(self):
        path = self.script("i = 0\nwhile true { i = i + 1 }\n")
        p = subprocess.Popen([TFG, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            self.fail("tfg did not exit on SIGINT")
        self.assertEqual(p.returncode, 130)
        self.assertIn("interrupted", err)

    def test_interrupt_stops_queue_runners_and_the_run_in_progress(self):
        path = self.script(
            "q = fifo_queue(4, [f32])\n"
            "n = variable(0.0)\n"
            "init()\n"
            "start_queue_runner(enqueue(q, assign_add(n, 1.0)), threads=2)\n"
            "b = dequeue_many(q, 2)\n"
            "while true { run(b) }\n")
        p = subprocess.Popen([TFG, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.5)
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            self.fail("tfg did not exit on SIGINT")
        self.assertEqual(p.returncode, 130, err)
        # Stopped gracefully at the run in the loop, not by the fallback exit.
        self.assertIn("s.tfg:6:", err)
        self.assertIn("error: interrupted (Ctrl-C)", err)

    # ------------------------------------------------------------ check/graph

    def test_check_ok(self):
        path = self.script('x = placeholder(f32, [?, 3], name="x")\ny = x * 2\nprint("not printed")\n')
        r = run("check", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, path + ": ok\n")

    def test_check_reports_errors(self):
        path = self.script("x = (1 +\n")
        r = run("check", path)
        self.assertEqual(r.returncode, 1)
        self.assertTrue(r.stderr.startswith(path + ":"), r.stderr)
        self.assertIn("error:", r.stderr)

    def test_check_leaves_a_loop_that_waits_for_a_run_result(self):
        # docs/queues.md's drain loop: check mode's zeros never raise
        # OutOfRange. The graph is still checked after the loop.
        path = self.script("q = fifo_queue(capacity=4, dtypes=[f32], shapes=[[]])\n"
                           "d = dequeue(q)\n"
                           "while true {\n"
                           "  try { run(d) } except OutOfRange { break }\n"
                           "}\n"
                           "bad = placeholder(f32, [2, 3]) @ placeholder(f32, [2, 3])\n")
        r = run("check", path)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(path + ":3:1: warning: check mode left this loop after 100000 iterations", r.stderr)
        self.assertIn(path + ":6:7: error: matmul: inner dimensions differ", r.stderr)

    def test_check_refuses_a_bad_feed(self):
        path = self.script("x = placeholder(f32, [?, 3])\n"
                           "v = run(x * 2.0, feed={x: [[1.0, 2.0, 3.0, 4.0]]})\n")
        r = run("check", path)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(path + ":2:5: error: feed for placeholder 'placeholder': expected f32[?, 3], got f32[1, 4]",
                      r.stderr)

    def test_check_refuses_contradictory_device_constraints(self):
        # No run() reaches b: check places the whole graph, as a run would
        # place the part it needs.
        path = self.script('with device("/device:cpu:1") { a = placeholder(f32, []) }\n'
                           'with device("/device:cpu:0") { with colocate_with(a) { b = neg(a) } }\n')
        r = run("--local-devices", "cpu=2", "check", path)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(path + ":2:60: error: contradictory device constraints: neg 'neg' asks for /device:cpu:0",
                      r.stderr)
        self.assertIn(path + ":1:36: note: 'placeholder' asks for /device:cpu:1 here", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_check_names_the_cluster_devices_when_none_matches(self):
        path = self.script('cluster({"ps": ["tcp://127.0.0.1:7001"], "worker": ["tcp://127.0.0.1:7002"]})\n'
                           'with device("/job:worker/task:5") { a = constant(1.0) * 2.0 }\n')
        r = run("check", path)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("error: cannot place 'constant': no device matches /job:worker/task:5 (devices: cpu:0, "
                      "/job:ps/task:0/device:cpu:0, /job:worker/task:0/device:cpu:0)\n", r.stderr)

    def test_graph_dot(self):
        path = self.script('a = placeholder(f32, [2], name="input_a")\nb = a * a\n')
        for args in (["graph", path, "--dot"], ["graph", "--dot", path], ["graph", path]):
            r = run(*args)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith("digraph"), r.stdout)
            self.assertIn("input_a", r.stdout)
            self.assertTrue(r.stdout.rstrip().endswith("}"), r.stdout)

    def test_graph_of_the_mlp_example_opens_on_a_few_boxes(self):
        # The bar (TensorFlow's own graph of this model has 20
        # top-level names): at depth 0, input, the three layers, loss,
        # gradients, Adam and correct; with --logdir, summaries too.
        example = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "fashion_mnist_mlp.tfg")
        r = run("graph", example, "--dot", "--depth", "0", timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        boxes = re.findall(r'^  (\w+) \[label="([^"\\]*)', r.stdout, re.M)
        self.assertEqual(sorted(label for _, label in boxes),
                         ["Adam/", "correct/", "gradients/", "hidden1/", "hidden2/", "input/", "logits/", "loss/"])

    def test_graph_rejects_extra_arguments(self):
        path = self.script("a = 1\n")
        self.assertUsageError(run("graph", path, "extra"), "unexpected argument 'extra'")

    # -------------------------------------------------------------------- doc

    def test_doc_ops(self):
        r = run("doc", "ops")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(r.stdout.startswith("# Op reference"))
        self.assertUsageError(run("doc", "nothing"), "unknown doc topic")


if __name__ == "__main__":
    TFG = os.path.abspath(sys.argv.pop(1))
    unittest.main()
