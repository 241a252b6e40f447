#!/usr/bin/env python3
"""The REPL through a real pseudo-terminal: line editing on, prompts,
multi-line input, errors, history and tab completion.

usage: repl_test.py TFG_BINARY
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pty_session import PtySession  # noqa: E402

TFG = None
DOCS_OPS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "ops.md")
PROMPT = r"tfg> "
MORE = r"\.\.\.> "


class ReplTest(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="tfg_repl_")
        self.history = os.path.join(self.home, "history")
        self.sessions = []

    def tearDown(self):
        for s in self.sessions:
            s.close()
        shutil.rmtree(self.home, ignore_errors=True)

    def start(self, history=None):
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": self.home, "TERM": "xterm",
               "TFG_HISTORY": self.history if history is None else history}
        s = PtySession([TFG, "--threads", "2"], env)
        self.sessions.append(s)
        s.expect(PROMPT)
        return s

    def eval(self, s, line, value):
        """Types `line` and expects `value` printed on its own line."""
        s.send(line + "\r")
        s.expect(r"\r\n" + value + r"\r\n")
        s.expect(PROMPT)

    def eval_silent(self, s, line):
        """Types `line` and expects no output before the next prompt."""
        s.send(line + "\r")
        s.expect(re.escape(line) + r"\r\n" + PROMPT)

    def quit(self, s):
        s.send("\x04")  # Ctrl-D on an empty line
        self.assertEqual(s.wait(), 0, s.text())

    def test_expression_value_is_printed(self):
        s = self.start()
        self.eval(s, "1 + 2", "3")
        self.eval_silent(s, "a = 6")  # an assignment prints nothing
        self.eval(s, "a * 7", "42")
        self.quit(s)

    def test_multi_line_function(self):
        s = self.start()
        s.send("fn twice(v) {\r")
        s.expect(MORE)
        s.send("return v * 2\r")
        s.expect(MORE)
        s.send("}\r")
        s.expect(PROMPT)
        self.eval(s, "twice(21)", "42")
        self.quit(s)

    def test_error_then_valid_line(self):
        s = self.start()
        s.send("undefined_name_xyz + 1\r")
        s.expect(r"error: [^\r]*undefined_name_xyz")
        s.expect(r"\^")  # the caret under the source line
        s.expect(PROMPT)
        self.eval(s, "2 * 4", "8")
        self.quit(s)

    def test_history_is_kept_between_sessions(self):
        s = self.start()
        self.eval(s, "10 + 1", "11")
        self.quit(s)
        with open(self.history) as f:
            self.assertIn("10 + 1", f.read().splitlines())
        s = self.start()
        s.send("\x1b[A")  # Up: the previous session's line comes back
        s.expect(r"10 \+ 1")
        s.send("\r")
        s.expect(r"\r\n11\r\n")
        self.quit(s)

    def test_history_file_keeps_the_last_1000_entries(self):
        with open(self.history, "w") as f:
            f.write("".join("%d\n" % i for i in range(1500)))
        s = self.start()
        self.eval(s, "7 * 6", "42")
        self.eval(s, "7 * 7", "49")
        self.quit(s)
        with open(self.history) as f:
            lines = f.read().splitlines()
        self.assertEqual(len(lines), 1000)
        self.assertEqual(lines[-3:], ["1499", "7 * 6", "7 * 7"])

    def test_no_history_when_disabled(self):
        s = self.start(history="")
        self.eval(s, "3 + 4", "7")
        self.quit(s)
        self.assertEqual(os.listdir(self.home), [])

    def test_tab_completes_a_name(self):
        s = self.start()
        self.eval_silent(s, "my_long_variable = 40")
        s.send("my_long_v\t + 2\r")
        s.expect(r"\r\n42\r\n")
        self.quit(s)

    def test_tab_completes_an_op(self):
        s = self.start()
        s.send("run(matm\t(constant([[1.5]]), constant([[2.0]])))\r")
        s.expect(r"\r\n\[\[3\.\]\]\r\n")  # 1.5 * 2.0
        self.quit(s)

    def test_tab_completes_attributes(self):
        s = self.start()
        self.eval_silent(s, "W = variable([[1.0, 2.0], [3.0, 4.0]], name=\"W\")")
        s.send("W.sha\t\r")  # W.sha alone would be an unknown attribute
        s.expect(r"\r\n\[2, 2\]\r\n")
        s.expect(PROMPT)
        self.quit(s)

    def test_tab_completes_keyword_arguments(self):
        s = self.start()
        self.eval_silent(s, "x = placeholder(f32, [2])")
        s.send("run(x * 2.0, feed_d\t{x: [1.0, 4.0]})\r")
        s.expect(r"\r\n\[2\. 8\.\]\r\n")  # feed_d= alone would be an unknown keyword
        s.expect(PROMPT)
        self.quit(s)

    def test_tab_hides_private_module_members(self):
        s = self.start()
        self.eval_silent(s, "import nn")
        s.send("nn.\t\t")  # twice: the list of candidates
        listing = s.expect(r"(?s)nn\.dense.*?" + PROMPT + "nn\\.", timeout=10).group(0).decode(errors="replace")
        self.assertNotIn("_pair", listing)
        self.assertNotIn("_conv2d", listing)
        s.send("\x15")  # Ctrl-U: clear the line
        # A top-level private name is offered once its '_' is typed.
        self.eval_silent(s, "_my_private = 7")
        s.send("_my_pr\t + 1\r")
        s.expect(r"\r\n8\r\n")
        self.quit(s)

    def test_graph_tensors_echo_without_running(self):
        # As TensorFlow shows a tf.Tensor: typing y must not run it (x is unfed).
        s = self.start()
        self.eval_silent(s, "x = placeholder(f32, [?, 2], name=\"x\")")
        self.eval_silent(s, "W = variable([[1.0, 2.0], [3.0, 4.0]], name=\"W\")")
        self.eval_silent(s, "y = matmul(x, W, name=\"MatMul\")")
        self.eval(s, "y", r'<tensor "MatMul:0" f32\[\?, 2\]>')
        self.eval(s, "W", r'<variable "W:0" f32\[2, 2\]>')
        with_device = 'with device("/cpu:0") { z = relu(x, name="r") }'
        self.eval_silent(s, with_device)
        self.eval(s, "z", r'<tensor "r:0" f32\[\?, 2\] device="/device:cpu:0">')
        self.eval(s, "[y, 1]", r'\[<tensor "MatMul:0" f32\[\?, 2\]>, 1\]')
        self.eval_silent(s, "init()")
        # [1, 1] @ W = [1 + 3, 2 + 4], by hand
        self.eval(s, "run(y, feed_dict={x: [[1.0, 1.0]]})", r"\[\[4\. 6\.\]\]")
        self.quit(s)

    def test_strings_inside_containers_print_quoted(self):
        s = self.start()
        self.eval(s, '["a", run(constant("b.rec:0")), 1]', r'\["a", "b\.rec:0", 1\]')
        self.quit(s)

    def test_else_may_start_the_next_line_at_the_prompt(self):
        s = self.start()
        self.eval_silent(s, "x = 3")
        s.send("if x > 5 {\r")
        s.expect(MORE)
        s.send('  print("big")\r')
        s.expect(MORE)
        s.send("}\r")
        s.expect(MORE)  # the if waits for a possible else
        s.send('else { print("small") }\r')
        s.expect(MORE)  # and an elif could still follow
        s.send("\r")
        s.expect(r"\r\nsmall\r\n" + PROMPT)
        # An empty line runs an if that has no else, as in Python.
        s.send('if x == 3 { print("three") }\r')
        s.expect(MORE)
        s.send("\r")
        s.expect(r"\r\nthree\r\n" + PROMPT)
        # Any other line runs the if, then is read as the next statement.
        s.send('if x == 3 { print("again") }\r')
        s.expect(MORE)
        s.send("x + 1\r")
        s.expect(r"\r\nagain\r\n4\r\n" + PROMPT)
        s.send("try { error(\"boom\") }\r")
        s.expect(MORE)
        s.send("except as e { print(\"caught\", e) }\r")
        s.expect(MORE)
        s.send("\r")
        s.expect(r"\r\ncaught boom\r\n" + PROMPT)
        self.quit(s)

    def test_help_and_dir(self):
        s = self.start()
        s.send("help(relu)\r")
        shown = s.expect(r"(?s)help\(relu\)\r\n(.*?)" + PROMPT).group(1).decode().replace("\r\n", "\n")
        # The same text as relu's section of docs/ops.md (the kernels line
        # depends on whether this build has CUDA).
        with open(DOCS_OPS) as f:
            ops_md = f.read()
        section = ops_md[ops_md.index("## relu\n"):ops_md.index("## relu6\n")]
        strip = lambda text: [l for l in text.strip().splitlines() if not l.startswith("- **kernels:**")]
        self.assertEqual(strip(shown), strip(section))
        s.send("help(run)\r")
        s.expect(r"run\(fetches, feed=none, timeout=none, feed_dict=none\)\r\n\r\nRuns the graph")
        s.expect(PROMPT)
        self.eval(s, "dir(constant(1.0))", r'\["device", "dtype", "name", "ndim", "op", "shape", "size"\]')
        self.quit(s)

    def test_ctrl_c_at_the_prompt_drops_the_line(self):
        # As Python's prompt: Ctrl-C drops what was typed (a whole statement
        # begun over several lines too), prints KeyboardInterrupt and prompts
        # again; only Ctrl-D ends the session.
        s = self.start()
        self.eval_silent(s, "kept = 5")
        s.send("\x03")  # on an empty line
        s.expect(r"\r\nKeyboardInterrupt\r\n" + PROMPT)
        s.send("kept = 1 +")
        s.expect(r"kept = 1 \+")  # the editor has it
        s.send("\x03")
        s.expect(r"\r\nKeyboardInterrupt\r\n" + PROMPT)
        s.send("fn f() {\r")
        s.expect(MORE)
        s.send("\x03")  # at the continuation prompt: the whole fn goes
        s.expect(r"\r\nKeyboardInterrupt\r\n" + PROMPT)
        s.send("if kept > 1 { print(\"big\") }\r")
        s.expect(MORE)  # asks whether an else follows: Ctrl-C drops the if unrun, as Python's does
        s.send("\x03")
        s.expect(r"\r\nKeyboardInterrupt\r\n" + PROMPT)
        self.assertNotIn("\r\nbig\r\n", s.text())  # the if never ran
        self.eval(s, "kept", "5")
        self.assertIsNone(s.poll_exit(0.2))
        self.eval(s, "f", r".*unknown name 'f'.*")
        self.quit(s)
        with open(self.history) as f:
            self.assertEqual(f.read().splitlines(), ["kept = 5", "fn f() {", "if kept > 1 { print(\"big\") }",
                                                     "kept", "f"])

    def test_non_ascii_input(self):
        # Keys reach the line editor decoded from UTF-8 (repl_interrupt.cc
        # reads them): five characters, one of them two bytes.
        s = self.start()
        self.eval(s, 'len("h\u00e9llo")', "5")
        self.eval(s, '"\u00e9t\u00e9 \u2192 \U0001F600"', '"\u00e9t\u00e9 \u2192 \U0001F600"')
        self.quit(s)

    def test_history_file_that_is_not_a_regular_file_is_left_alone(self):
        # A FIFO would block the read (and the append) forever, /dev/zero
        # never ends, a directory holds nothing: each gets one warning, and
        # the session runs without saving history.
        fifo = os.path.join(self.home, "fifo")
        os.mkfifo(fifo)
        for path, kind in [(fifo, r"a FIFO \(named pipe\)"), ("/dev/zero", "a character device"),
                           (self.home, "a directory")]:
            s = self.start(history=path)
            self.assertRegex(s.text(), "warning: cannot read history file '%s': it is %s, not a regular file; "
                             "history is not saved this session" % (re.escape(path), kind))
            self.eval(s, "6 * 7", "42")
            self.quit(s)
        self.assertEqual(sorted(os.listdir(self.home)), ["fifo"])

    def test_huge_history_file_is_not_read(self):
        # Far larger than any history tfg writes: refused before a byte is
        # read, and left as it was.
        with open(self.history, "wb") as f:
            f.truncate(64 << 20)  # sparse: no disk used
        s = self.start()
        self.assertIn("warning: cannot read history file '%s': it is %d bytes, more than the %d that may be read"
                      % (self.history, 64 << 20, 16 << 20), s.text())
        self.eval(s, "6 * 7", "42")
        self.quit(s)
        self.assertEqual(os.path.getsize(self.history), 64 << 20)

    def test_dir_lists_the_session_s_names(self):
        s = self.start()
        self.eval(s, "dir()", r"\[\]")
        self.eval_silent(s, "W = variable([1.0], name=\"W\")")
        self.eval_silent(s, "_hidden = 1")
        self.eval_silent(s, "import nn")
        self.eval(s, "dir()", r'\["W", "nn"\]')
        self.quit(s)

    def interrupt(self, s, line):
        """Types `line`, presses Ctrl-C while it runs, and expects the
        interruption reported at the statement and a fresh prompt."""
        s.send(line + "\r")
        s.expect(re.escape(line) + r"\r\n")
        time.sleep(0.5)  # let it get going
        s.send("\x03", wait_for_editor=False)  # the line editor is not reading now
        s.expect(r"\r\n<stdin>:1:1: error: interrupted \(Ctrl-C\)\r\n 1 \| " + re.escape(line))
        s.expect(PROMPT, timeout=10)

    def test_ctrl_c_keeps_the_model(self):
        # The target: define a model, start a long run(), Ctrl-C;
        # the prompt returns and the variables still hold their values.
        s = self.start()
        self.eval_silent(s, "x = placeholder(f32, [?, 2], name=\"x\")")
        self.eval_silent(s, "W = variable([[1.0, 2.0], [3.0, 4.0]], name=\"W\")")
        self.eval_silent(s, "y = x @ W")
        self.eval_silent(s, "init()")
        self.eval(s, "run(assign_add(W, [[1.0, 1.0], [1.0, 1.0]]))", r"\[\[2\. 3\.\]\r\n \[4\. 5\.\]\]")
        self.eval_silent(s, "n = 0")
        self.eval_silent(s, "r = while_loop(fn(i) { i < 2000000000 }, fn(i) { [i + 1] }, [0])")
        self.interrupt(s, "run(r)")
        line = "for i in range(1000000000) { n = i }"  # a host loop: stops at its next statement
        s.send(line + "\r")
        s.expect(re.escape(line) + r"\r\n")
        time.sleep(0.5)
        s.send("\x03", wait_for_editor=False)
        s.expect(r"<stdin>:1:30: error: interrupted \(Ctrl-C\)")
        s.expect(PROMPT, timeout=10)
        self.eval(s, "run(W)", r"\[\[2\. 3\.\]\r\n \[4\. 5\.\]\]")
        self.eval(s, "run(y, feed={x: [[1.0, 0.0]]})", r"\[\[2\. 3\.\]\]")  # first row of W
        self.eval(s, "n > 0", "true")  # the host loop had run, and its variable stays
        self.quit(s)

    def test_ctrl_c_cancels_the_running_statement(self):
        # As in Python: the statement stops, the session and its variables stay.
        s = self.start()
        self.eval_silent(s, "x = 41")
        self.eval_silent(s, "r = while_loop(fn(i) { i < 1000000000 }, fn(i) { [i + 1] }, [0])")
        self.interrupt(s, "run(r)")  # a graph run of a billion iterations
        self.interrupt(s, "while true {}")  # a host loop
        self.eval(s, "x + 1", "42")
        self.quit(s)


def piped(text, *flags):
    """The REPL with `text` on stdin (a pipe), history off."""
    return subprocess.run([TFG, *flags], input=text, capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, TFG_HISTORY=""))


class PipedReplTest(unittest.TestCase):
    """stdin not a terminal: no prompts, no editing, still multi-line aware."""

    def test_piped_input(self):
        text = "1 + 2\nfn f(a) {\n  return a * 2\n}\n\nf(21)\nnope_undefined\n5 - 1\n"
        r = piped(text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["3", "42", "4"])
        self.assertIn("nope_undefined", r.stderr)
        self.assertNotIn("tfg>", r.stdout)

    def test_errors_give_the_input_s_line_numbers(self):
        # Each statement is evaluated on its own, but an error names the line
        # of the whole input, and a note in an earlier statement its own.
        text = "# setup\nx = 1\n\nfn g(a) {\n  return a + \"s\"\n}\n\nz = [1,\n  2,\n  nope]\ng(x)\nprint(x)\n"
        r = piped(text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "1\n")
        self.assertIn("<stdin>:10:3: error: unknown name 'nope'", r.stderr)
        self.assertIn("\n 10 |   nope]\n", r.stderr)
        self.assertIn("<stdin>:5:10: error: '+' is not supported between an int and a string", r.stderr)
        self.assertIn("\n 5 |   return a + \"s\"\n", r.stderr)
        self.assertIn("<stdin>:11:1: note: in this call of 'g'", r.stderr)

    def test_ctrl_c_ends_piped_input_at_its_line(self):
        # Piped input is a script fed line by line: Ctrl-C ends it (exit 130),
        # naming the input's line, and what follows does not run.
        p = subprocess.Popen([TFG], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=dict(os.environ, TFG_HISTORY=""))
        p.stdin.write("x = 1\n\nwhile x > 0 {\n  x += 1\n}\nprint(\"after\")\n")
        p.stdin.close()
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        p.wait(timeout=30)
        out, err = p.stdout.read(), p.stderr.read()
        p.stdout.close()
        p.stderr.close()
        self.assertEqual(p.returncode, 130, err)
        self.assertEqual(out, "")
        self.assertIn("<stdin>:4:3: error: interrupted (Ctrl-C)", err)

    def test_else_may_start_the_next_line(self):
        # As in a script: read ahead, the if waits for its else.
        text = "x = 3\nif x > 5 {\n  print(\"big\")\n}\nelse {\n  print(\"small\")\n}\n" \
               "if x == 3 { print(\"three\") }\nprint(\"after\")\nif x > 1 { print(\"last\") }"
        r = piped(text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["small", "three", "after", "last"])
        self.assertEqual(r.stderr, "")

    def test_blank_lines_may_come_before_the_else(self):
        text = "if false {\n  print(1)\n}\n\n\nelse {\n  print(2)\n}\n\nprint(3)\nif true { print(4) }\n\n"
        r = piped(text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["2", "3", "4"])
        self.assertEqual(r.stderr, "")

    def test_except_may_start_the_next_line(self):
        text = "try {\n  error(\"boom\")\n}\nexcept NotFound {\n  print(\"wrong\")\n}\nexcept as e {\n" \
               "  print(\"caught\", e)\n}\nprint(\"after\")\n"
        r = piped(text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["caught boom", "after"])
        self.assertEqual(r.stderr, "")

    def test_graph_tensors_echo_without_running(self):
        text = "c = constant([[1, 2], [3, 4]], name=\"c\")\nsplit(c, 2, name=\"parts\")\n" \
               "{\"c\": c}\nrun([c[1], 5])\n"
        r = piped(text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ['[<tensor "parts:0" i32[1, 2]>, <tensor "parts:1" i32[1, 2]>]',
                                                 '{"c": <tensor "c:0" i32[2, 2]>}', "[[3 4], 5]"])

    def test_trace_and_stats_are_written_when_the_session_ends(self):
        trace = os.path.join(tempfile.mkdtemp(prefix="tfg_repl_"), "t.json")
        r = piped("x = placeholder(f32, [2])\nrun(x * 3.0, feed={x: [1.0, 2.0]})\n", "--stats", "--trace", trace)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "[3. 6.]\n")
        self.assertIn("all kernels", r.stderr)
        with open(trace) as f:
            names = {e.get("name") for e in json.load(f)["traceEvents"]}
        self.assertIn("mul", names)
        shutil.rmtree(os.path.dirname(trace))

    def test_lines_that_build_nodes_are_not_a_loop(self):
        # Each entry is a file of its own, all "<stdin>" from line 1: the
        # warning about a loop building nodes must not take them for one.
        text = "run(constant(1.0))\nrun(constant(2.0) + 1.0)\nrun(constant(3.0) * 2.0)\nrun(constant(4.0))\n"
        r = piped(text)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout.splitlines(), ["1.0", "3.0", "6.0", "4.0"])
        self.assertEqual(r.stderr, "")


if __name__ == "__main__":
    TFG = os.path.abspath(sys.argv.pop(1))
    unittest.main()
