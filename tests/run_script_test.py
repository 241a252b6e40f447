#!/usr/bin/env python3
"""Runs one .tfg script test and checks the expectations written inside it.

usage: run_script_test.py TFG_BINARY SCRIPT

The script runs as `TFG --seed 1 --threads 2 [FLAGS...] SCRIPT ARGS...` from
its own directory. Expectations are comments in the script (tests/scripts/README.md
has the full story):

  # expect: TEXT             next line of stdout (all of them, in order, must
                             be the whole stdout; trailing blanks ignored)
  # expect-error: TEXT       the run fails with an error at this line ...
  # expect-error@+N: TEXT    ... or at the line N below (@-N: above) whose
                             message contains TEXT
  # expect-stderr: TEXT      stderr contains TEXT
  # expect-no-stderr: TEXT   stderr does not contain TEXT
  # exit: N                  the exit code (default 0; 1 with expect-error)
  # args: a b c              script arguments (split like a shell would)
  # flags: --check-numerics  more tfg options, before SCRIPT
  # timeout: SECONDS         instead of the default 60
"""

import difflib
import os
import re
import shlex
import subprocess
import sys

DEFAULT_TIMEOUT = 60

DIRECTIVE = re.compile(
    r"#\s*(expect-error(?:@([+-]\d+))?|expect-stderr|expect-no-stderr|expect|exit|args|flags|timeout):(.*)$")


class Spec:
    def __init__(self):
        self.stdout = []        # expected stdout lines
        self.errors = []        # (line, text)
        self.stderr = []        # substrings of stderr
        self.not_stderr = []    # substrings stderr must not have
        self.exit_code = None
        self.args = []
        self.flags = []         # tfg options before the script
        self.timeout = DEFAULT_TIMEOUT


def strip_one_space(text):
    # `# expect:  [3. 4.]]` keeps the space NumPy puts before a row.
    return text[1:] if text.startswith(" ") else text


def parse_spec(path):
    spec = Spec()
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, start=1):
            m = DIRECTIVE.search(line.rstrip("\n"))
            if not m:
                continue
            kind, offset, value = m.group(1), m.group(2), strip_one_space(m.group(3))
            if kind == "expect":
                spec.stdout.append(value.rstrip())
            elif kind.startswith("expect-error"):
                spec.errors.append((lineno + int(offset or 0), value.strip()))
            elif kind == "expect-stderr":
                spec.stderr.append(value.strip())
            elif kind == "expect-no-stderr":
                spec.not_stderr.append(value.strip())
            elif kind == "exit":
                spec.exit_code = int(value)
            elif kind == "args":
                spec.args = shlex.split(value)
            elif kind == "flags":
                spec.flags = shlex.split(value)
            elif kind == "timeout":
                spec.timeout = float(value)
    if spec.exit_code is None:
        spec.exit_code = 1 if spec.errors else 0
    return spec


def normalize(text):
    lines = [line.rstrip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def check(spec, script, result):
    """Returns a list of problems (empty when the run met the spec)."""
    problems = []
    if result.returncode != spec.exit_code:
        problems.append("exit code %d, expected %d" % (result.returncode, spec.exit_code))
    if spec.stdout:
        actual = normalize(result.stdout)
        if actual != spec.stdout:
            diff = difflib.unified_diff(spec.stdout, actual, "expected stdout", "actual stdout", lineterm="")
            problems.append("stdout differs:\n" + "\n".join(diff))
    for line, text in spec.errors:
        header = re.compile(re.escape("%s:%d:" % (script, line)) + r"\d+: error: (.*)")
        messages = [m.group(1) for m in header.finditer(result.stderr)]
        if not any(text in message for message in messages):
            found = "; found errors: " + " | ".join(messages) if messages else ""
            problems.append("expected an error at %s:%d containing %r%s" % (script, line, text, found))
    for text in spec.stderr:
        if text not in result.stderr:
            problems.append("stderr does not contain %r" % text)
    for text in spec.not_stderr:
        if text in result.stderr:
            problems.append("stderr contains %r" % text)
    return problems


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    tfg, script = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    spec = parse_spec(script)
    command = [tfg, "--seed", "1", "--threads", "2"] + spec.flags + [script] + spec.args
    env = dict(os.environ, TFG_HISTORY="")
    try:
        result = subprocess.run(command, capture_output=True, text=True, errors="replace", timeout=spec.timeout,
                                cwd=os.path.dirname(os.path.abspath(script)), env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        print("FAIL %s: no exit after %g s (command: %s)" % (script, spec.timeout, shlex.join(command)))
        print("--- stdout so far\n%s" % (e.stdout or b"").decode(errors="replace"))
        return 1
    problems = check(spec, script, result)
    if not problems:
        return 0
    print("FAIL %s (command: %s)" % (script, shlex.join(command)))
    for problem in problems:
        print("* " + problem)
    print("--- stdout\n" + result.stdout + "--- stderr\n" + result.stderr + "---")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
