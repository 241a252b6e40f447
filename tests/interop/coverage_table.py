#!/usr/bin/env python3
"""Regenerates the op coverage table of docs/tensorflow-interop.md from
ops/tf_op_map.tsv (the table between the coverage-table markers).

  python3 tests/interop/coverage_table.py [--check]   (--check: exit 1 when stale)
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "tensorflow-interop.md"
BEGIN, END = "<!-- coverage-table:begin -->", "<!-- coverage-table:end -->"
# Ops the importer translates besides the table's rows (interp/interop/node_converter.cc).
SPECIAL = [("Const", "constant", "the value becomes the node's tensor"),
           ("Placeholder", "placeholder", "or the input_map= tensor"),
           ("VariableV2, VarHandleOp", "variable", "shared name: the imported node's name"),
           ("ReadVariableOp", "identity", "of the variable"),
           ("AssignVariableOp", "assign", "of the variable")]


def table():
    rows = ["| TensorFlow op | tfg op | attrs (tfg=TensorFlow; @N: TensorFlow's input N) | notes |",
            "|---|---|---|---|"]
    for tf_op, tfg, note in SPECIAL:
        rows.append(f"| `{tf_op}` | `{tfg}` | | {note} |")
    no_tf = []
    for line in (ROOT / "ops" / "tf_op_map.tsv").read_text().splitlines():
        if line.startswith("#") or line.startswith("tfg\t"):
            continue
        tfg, kind, tf_op, _api, attrs, note = (line.split("\t") + ["-"] * 6)[:6]
        if kind != "op":
            continue
        if tf_op == "-":
            no_tf.append(f"`{tfg}`")
            continue
        attrs = "" if attrs == "-" else attrs.replace(",", ", ")
        note = "" if note == "-" else note.replace("|", "\\|")
        rows.append(f"| `{tf_op}` | `{tfg}` | {attrs} | {note} |")
    rows.append("")
    rows.append("tfg ops with no TensorFlow op (export refuses them, naming each): " + ", ".join(no_tf) + ".")
    return "\n".join(rows)


def main():
    text = DOC.read_text()
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    new = f"{head}{BEGIN}\n{table()}\n{END}{tail}"
    if "--check" in sys.argv:
        sys.exit(0 if new == text else 1)
    DOC.write_text(new)


if __name__ == "__main__":
    main()
