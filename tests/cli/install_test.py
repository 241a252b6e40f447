#!/usr/bin/env python3
"""`cmake --install` into a fresh prefix, then tfg run from there: the
binary, the standard library found next to it (never the source tree), the
examples, the docs and the man page generated from `tfg --help`. Then the
Debian package (CPack, as scripts/package makes it): built, unpacked into a
fresh root with dpkg-deb (no root needed) and the MLP example run from
there.

usage: install_test.py BUILD_DIR
"""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

BUILD = None
SOURCE_STDLIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "stdlib")


def tfg(prefix, *args, cwd):
    return subprocess.run([os.path.join(prefix, "bin", "tfg"), *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env=dict(os.environ, TFG_HISTORY="", TFG_STDLIB_DIR=""))


class InstallTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="tfg-install-")
        cls.prefix = os.path.join(cls.tmp, "prefix")
        cls.work = os.path.join(cls.tmp, "work")  # a working directory with no stdlib/ in it
        os.mkdir(cls.work)
        done = subprocess.run(["cmake", "--install", BUILD, "--prefix", cls.prefix], capture_output=True, text=True,
                              timeout=120)
        if done.returncode != 0:
            raise AssertionError("cmake --install failed:\n" + done.stdout + done.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def path(self, *parts):
        return os.path.join(self.prefix, *parts)

    def test_layout(self):
        self.assertTrue(os.access(self.path("bin", "tfg"), os.X_OK))
        for module in ("nn", "data", "metrics", "optim"):
            self.assertTrue(os.path.isfile(self.path("share", "tfg", "stdlib", module + ".tfg")), module)
        self.assertTrue(os.path.isfile(self.path("share", "tfg", "examples", "fashion_mnist_mlp.tfg")))
        self.assertTrue(os.path.isfile(self.path("share", "doc", "tfg", "README.md")))
        self.assertTrue(os.path.isfile(self.path("share", "doc", "tfg", "docs", "cli.md")))

    def test_man_page_is_the_help_text(self):
        with open(self.path("share", "man", "man1", "tfg.1")) as f:
            page = f.read()
        self.assertTrue(page.startswith(".TH TFG 1 "), page[:80])
        self.assertIn(".SH NAME\ntfg \\- ", page)
        self.assertIn(".SH OPTIONS\n", page)
        self.assertIn("--check-numerics", page)
        self.assertIn("tfg [options] check FILE", page)

    def test_example_runs_from_the_prefix(self):
        # y = 3x - 2 fitted by gradient descent; the script prints the fit last.
        done = tfg(self.prefix, "-q", self.path("share", "tfg", "examples", "linear_regression.tfg"), cwd=self.work)
        self.assertEqual(done.returncode, 0, done.stderr)
        last = done.stdout.strip().splitlines()[-1].replace("[", " ").replace("]", " ").split()
        self.assertEqual(last[0], "w")
        self.assertAlmostEqual(float(last[1]), 3.0, delta=0.05)
        self.assertAlmostEqual(float(last[3]), -2.0, delta=0.05)

    def test_stdlib_is_found_next_to_the_binary(self):
        script = os.path.join(self.work, "uses_stdlib.tfg")
        with open(script, "w") as f:
            # argmax per row: 1, 0, 1 against labels 1, 0, 0: two correct.
            f.write("import metrics\n"
                    "logits = constant([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]])\n"
                    "labels = constant([1, 0, 0])\n"
                    "print(run(metrics.correct(logits, labels)))\n")
        done = tfg(self.prefix, script, cwd=self.work)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stdout.strip(), "2")

    def test_never_the_source_tree(self):
        # Moved aside, the installed stdlib is what the error names; the
        # source tree's stdlib/ (still on this machine) is not used.
        stdlib = self.path("share", "tfg", "stdlib")
        moved = stdlib + ".moved"
        os.rename(stdlib, moved)
        try:
            script = os.path.join(self.work, "imports_nn.tfg")
            with open(script, "w") as f:
                f.write("import nn\nprint(1)\n")
            done = tfg(self.prefix, script, cwd=self.work)
        finally:
            os.rename(moved, stdlib)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("cannot find module 'nn'", done.stderr)
        self.assertIn(os.path.join(stdlib, "nn.tfg"), done.stderr)
        self.assertNotIn(os.path.realpath(SOURCE_STDLIB), done.stderr)


class DebPackageTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not (shutil.which("cpack") and shutil.which("dpkg-deb")):
            raise unittest.SkipTest("needs cpack and dpkg-deb (Debian)")
        cls.tmp = tempfile.mkdtemp(prefix="tfg-deb-")
        # -B: the package and CPack's staging go here, not into the build.
        done = subprocess.run(["cpack", "-G", "DEB", "-B", cls.tmp], cwd=BUILD, capture_output=True, text=True,
                              timeout=180)
        if done.returncode != 0:
            raise AssertionError("cpack failed:\n" + done.stdout + done.stderr)
        debs = [f for f in os.listdir(cls.tmp) if f.endswith(".deb")]
        if len(debs) != 1:
            raise AssertionError("expected one .deb in %s, got %s" % (cls.tmp, debs))
        cls.deb = os.path.join(cls.tmp, debs[0])
        cls.root = os.path.join(cls.tmp, "root")
        subprocess.run(["dpkg-deb", "-x", cls.deb, cls.root], check=True, timeout=120)
        cls.work = os.path.join(cls.tmp, "work")
        os.mkdir(cls.work)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def field(self, name):
        return subprocess.run(["dpkg-deb", "-f", self.deb, name], capture_output=True, text=True,
                              check=True).stdout.strip()

    def test_control_fields(self):
        self.assertEqual(self.field("Package"), "tfg")
        # dpkg-shlibdeps found the shared libraries tfg links.
        depends = self.field("Depends")
        for library in ("libedit2", "libzmq5", "libopenblas0", "libc6"):
            self.assertIn(library, depends)

    def test_installs_under_usr(self):
        usr = os.path.join(self.root, "usr")
        self.assertTrue(os.access(os.path.join(usr, "bin", "tfg"), os.X_OK))
        self.assertTrue(os.path.isfile(os.path.join(usr, "share", "tfg", "stdlib", "nn.tfg")))
        self.assertTrue(os.path.isfile(os.path.join(usr, "share", "man", "man1", "tfg.1")))
        self.assertEqual(sorted(os.listdir(self.root)), ["usr"])

    def test_mlp_example_runs_from_the_unpacked_package(self):
        # The target, shortened as the example tests shorten it: one
        # epoch on 2000 images; one epoch on all 60000 reaches about 85%.
        if not os.path.isdir("/usr/share/datasets/fashion-mnist"):
            self.skipTest("needs Debian's dataset-fashion-mnist (scripts/setup)")
        example = os.path.join(self.root, "usr", "share", "tfg", "examples", "fashion_mnist_mlp.tfg")
        done = tfg(os.path.join(self.root, "usr"), "-q", example, "1", "2000", "0.5", "1000", cwd=self.work)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertRegex(done.stdout, r"epoch 1 test accuracy 0\.[5-9]")


if __name__ == "__main__":
    BUILD = sys.argv.pop(1)
    unittest.main()
