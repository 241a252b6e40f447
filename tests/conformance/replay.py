#!/usr/bin/env python3
"""Replays the TensorFlow cases of tests/conformance/data on tfg (a CTest test).

    python3 tests/conformance/replay.py TFG [op ...] [--verbose]

For each op's .npz (written by record.py) it writes one script that feeds
each case's inputs through placeholders (or as host constants, or as the
initial value of a variable it reads back after the op; strings as literals,
since load_npy reads none, and back out through write_records), runs the op,
and, for differentiable cases, the symbolic gradient of sum(output * w) that
TensorFlow's gradients were recorded for; then compares with NumPy: exact for
integers and bools, a tolerance scaled per dtype and per op for floats, NaN
equal to NaN, infinities by sign, and the sign of a zero where the case asks.
Differences listed in known_differences.tsv (documented in
docs/tensorflow-differences.md) are expected; any other one fails the test.
"""
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
# Relative tolerance per dtype, times the case's own factor.
BASE_TOL = {"float16": 2e-3, "float32": 2e-6, "float64": 1e-13}


def read_known():
    known = []
    with open(os.path.join(HERE, "known_differences.tsv")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                op, label, what, _why = line.rstrip("\n").split("\t")
                known.append((op, label, what))
    return known


def tfg_string(b):
    """A tfg string literal holding exactly the bytes b."""
    return '"' + "".join(f"\\x{c:02x}" for c in b) + '"'


def string_input(x):
    """A tfg expression for the host string tensor x (load_npy reads no strings)."""
    if x.size == 0:
        return f'fill({list(x.shape)}, "")'
    return f"reshape([{', '.join(tfg_string(b) for b in x.ravel().tolist())}], {list(x.shape)})"


def script_for(z, meta, cases, tmp):
    """The script's lines and, per line, the index of the case it belongs to."""
    lines, owner = [], []

    def emit(k, text):
        lines.append(text)
        owner.append(k)

    for k in cases:
        c = meta["cases"][k]
        call = c["call"]
        feeds = []
        variables = c.get("var", [])
        for i in range(c["n_in"]):
            x = z[f"c{k}_i{i}"]
            emit(k, f"h{i} = {string_input(x)}" if x.dtype.kind == "S" else f'h{i} = load_npy("{tmp}/c{k}_i{i}.npy")')
            if i in variables:
                emit(k, f'v{i} = variable(h{i}, name="c{k}_v{i}")')
                emit(k, "init()")
            elif i not in c["host"]:
                emit(k, f"p{i} = placeholder(h{i}.dtype, h{i}.shape)")
                feeds.append(f"p{i}: h{i}")
        call = re.sub(r"@(\d+)", r"v\1", re.sub(r"\$(\d+)", r"p\1", re.sub(r"#(\d+)", r"h\1", call)))
        feed = "{" + ", ".join(feeds) + "}"
        emit(k, f"y = {call}")
        n_op = c["n_out"] - len(variables)
        if n_op == 0:  # an update with no outputs (apply_*): run it as a target
            emit(k, f"run(y, feed={feed})")
        ys = ["y"] if n_op == 1 and not (c.get("listed") and not variables) else [f"y[{j}]" for j in range(n_op)]
        # A variable is read back after the op ran (outputs run in order).
        ys += [f"v{i}" for i in variables]
        emit(k, f"ys = [{', '.join(ys)}]")
        for j in range(c["n_out"]):
            emit(k, f'_save("{tmp}/r{k}_o{j}", _value(ys[{j}], {feed}))')
        if c["wrt"]:
            terms = []
            for j in c["weighted"]:
                emit(k, f'w{j} = load_npy("{tmp}/c{k}_w{j}.npy")')
                terms.append(f"sum(ys[{j}] * w{j})")
            wrt = ", ".join(f"p{i}" for i in c["wrt"])
            emit(k, f'g = grad({" + ".join(terms)}, [{wrt}], unconnected="zero")')
            for j in range(len(c["wrt"])):
                emit(k, f'_save("{tmp}/r{k}_g{j}", _value(g[{j}], {feed}))')
    prelude = ['fn _value(v, feed) {',
               '  if type(v) == "graph tensor" or type(v) == "variable" { return run(v, feed=feed) }',
               '  return v', '}',
               # save_npy writes no strings: a string tensor goes out as records and its shape.
               'fn _save(path, v) {',
               '  if v.dtype == string {',
               '    write_records(path + ".rec", v)',
               '    write_records(path + ".shape.rec", [str(v.shape)])',
               '  } else { save_npy(path + ".npy", v) }', '}',
               # The optimizer cases: n steps of minimize() on v; v after each step.
               'fn _minimize_steps(v, target, opt, n) {',
               '  train = minimize(sum(target * v * v) + sum(v), opt, vars=[v])',
               '  init()',
               '  after = []',
               '  for i in range(n) {',
               '    run(train)',
               '    append(after, run(v))',
               '  }',
               '  return stack(after)', '}']
    return prelude + lines, [None] * len(prelude) + owner


def read_records(path):
    """The records of a TFRecord file (tfg's write_records), CRCs unchecked."""
    with open(path, "rb") as f:
        data = f.read()
    out, at = [], 0
    while at < len(data):
        n = int.from_bytes(data[at:at + 8], "little")
        out.append(data[at + 12:at + 12 + n])
        at += 16 + n
    return out


def load_result(path):
    """What tfg saved at path (see _save in script_for), or None."""
    if os.path.exists(path + ".npy"):
        return np.load(path + ".npy")
    if not os.path.exists(path + ".rec"):
        return None
    shape = json.loads(read_records(path + ".shape.rec")[0])
    records = read_records(path + ".rec")
    return np.array(records, dtype=bytes).reshape(shape) if records else np.zeros(shape, "S1")


def compare(kind, got, want, tol, zero_sign):
    """None when got matches want, else what differs."""
    if got.dtype.kind == "S" and want.dtype.kind == "S":
        got, want = got.astype(object), want.astype(object)  # widths differ, bytes do not
    if got.dtype != want.dtype:
        return f"{kind}: dtype {got.dtype}, TensorFlow {want.dtype}"
    if got.shape != want.shape:
        return f"{kind}: shape {list(got.shape)}, TensorFlow {list(want.shape)}"
    if want.dtype.kind != "f":
        bad = np.flatnonzero(got.ravel() != want.ravel())
    else:
        g, w = got.astype(np.float64).ravel(), want.astype(np.float64).ravel()
        rtol = BASE_TOL[want.dtype.name] * tol
        with np.errstate(invalid="ignore", over="ignore"):
            close = (g == w) | (np.isnan(g) & np.isnan(w)) | (np.abs(g - w) <= rtol * (1 + np.abs(w)))
            if zero_sign:
                close &= ~((g == 0) & (w == 0) & (np.signbit(g) != np.signbit(w)))
        bad = np.flatnonzero(~close)
    if len(bad) == 0:
        return None
    i = bad[0]
    inputs = ""
    return (f"{kind}: {len(bad)} of {want.size} differ; first at flat index {i}: "
            f"tfg {got.ravel()[i]!r}, TensorFlow {want.ravel()[i]!r}{inputs}")


def check_case(z, c, k, tmp):
    problems = []
    for j in range(c["n_out"]):
        got = load_result(f"{tmp}/r{k}_o{j}")
        if got is None:
            return ["no output"]
        p = compare(f"output {j}", got, z[f"c{k}_o{j}"], c["tol"], c["zero_sign"])
        if p:
            problems.append(p)
    for j, i in enumerate(c["wrt"]):
        got = load_result(f"{tmp}/r{k}_g{j}")
        if got is None:
            return problems + ["no gradient"]
        p = compare(f"gradient of input {i}", got, z[f"c{k}_g{j}"], c["grad_tol"], False)
        if p:
            problems.append(p)
    return problems


def replay_op(tfg, op):
    """{case index: [problems]} for the cases of `op` that differ, and the meta."""
    with np.load(os.path.join(DATA, op + ".npz")) as z:
        meta = json.loads(str(z["meta"]))
        with tempfile.TemporaryDirectory() as tmp:
            for key in z.files:
                if key != "meta" and ("_i" in key or "_w" in key) and z[key].dtype.kind != "S":
                    np.save(os.path.join(tmp, key + ".npy"), z[key])
            failures, todo = {}, list(range(len(meta["cases"])))
            while todo:
                lines, owner = script_for(z, meta, todo, tmp)
                path = os.path.join(tmp, "replay.tfg")
                with open(path, "w") as f:
                    f.write("\n".join(lines) + "\n")
                env = dict(os.environ, ASAN_OPTIONS=os.environ.get("ASAN_OPTIONS", "detect_leaks=0"))
                run = subprocess.run([tfg, "-q", "--threads", "1", path], capture_output=True, text=True,
                                     env=env, timeout=300)
                failed_at = None
                if run.returncode != 0:
                    m = re.search(r"replay\.tfg:(\d+):\d+: error: (.*)", run.stderr)
                    if not m or owner[int(m.group(1)) - 1] is None:
                        return {todo[0]: [f"tfg failed: {run.stderr.strip()[-400:]}"]}, meta
                    failed_at = owner[int(m.group(1)) - 1]
                    failures[failed_at] = [f"tfg error: {m.group(2)}"]
                done = todo if failed_at is None else todo[:todo.index(failed_at)]
                for k in done:
                    problems = check_case(z, meta["cases"][k], k, tmp)
                    if problems:
                        failures[k] = problems
                todo = [] if failed_at is None else todo[todo.index(failed_at) + 1:]
    return failures, meta


def is_known(known, op, label, problem):
    return any(re.fullmatch(o, op) and re.search(lab, label) and what.strip() in problem for o, lab, what in known)


def main(argv):
    verbose = "--verbose" in argv
    args = [a for a in argv[1:] if a != "--verbose"]
    tfg, only = args[0], args[1:]
    ops = sorted(f[:-4] for f in os.listdir(DATA) if f.endswith(".npz"))
    ops = [o for o in ops if not only or o in only]
    known = read_known()
    total = unexpected = expected = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        results = dict(zip(ops, pool.map(lambda o: replay_op(tfg, o), ops)))
    for op in ops:
        failures, meta = results[op]
        total += len(meta["cases"])
        for k in sorted(failures):
            label = meta["cases"][k]["label"]
            for problem in failures[k]:
                if is_known(known, op, label, problem):
                    expected += 1
                    if verbose:
                        print(f"known difference  {op} [{label}] {problem}")
                    continue
                unexpected += 1
                print(f"DIFFERS  {op} [{label}] `{meta['cases'][k]['call']}`: {problem}")
    print(f"{total} cases of {len(ops)} ops replayed: {unexpected} differ from TensorFlow, "
          f"{expected} known differences (docs/tensorflow-differences.md)")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
