#!/usr/bin/env python3
"""docs/ops.md must be what the op registry says today (`tfg doc ops`),
followed by the conformance suite's coverage paragraph.

usage: ops_doc_test.py TFG_BINARY DOCS_OPS_MD
"""

import difflib
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "conformance"))
import table  # noqa: E402  (tests/conformance/table.py: the coverage paragraph)


def main(tfg, doc_path):
    r = subprocess.run([tfg, "doc", "ops"], capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        print("`tfg doc ops` failed (exit %d):\n%s" % (r.returncode, r.stderr))
        return 1
    try:
        with open(doc_path, encoding="utf-8") as f:
            committed = f.read()
    except OSError as e:
        committed = ""
        print("cannot read %s: %s" % (doc_path, e))
    expected = r.stdout + table.ops_md_section(tfg)
    if committed == expected:
        return 0
    diff = difflib.unified_diff(committed.splitlines(), expected.splitlines(), doc_path, "tfg doc ops",
                                lineterm="", n=1)
    print("docs/ops.md is out of date with the op registry; run scripts/gen-docs and commit the result.")
    print("\n".join(list(diff)[:200]))
    return 1


if __name__ == "__main__":
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2]))
