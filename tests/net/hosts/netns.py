"""Hosts of their own on one machine: one network namespace per "host",
each with a veth pair into a bridge that lives in a namespace of its own
(the "switch"), and a private address (10.77.0.K/24). Nothing is made
outside namespaces this module creates, so the machine's own network is
never touched; the namespaces and every process started in them go away
at close(), on an exception, on SIGTERM/SIGINT, and, should this process
be killed outright, at the next start (namespaces named after a pid that
is gone are removed then) and through PR_SET_PDEATHSIG for the processes.

Needs root and iproute2's `ip`; `available()` says why not otherwise, and
the tests then print SKIPPED.
"""

import atexit
import ctypes
import os
import re
import shutil
import signal
import subprocess
import sys
import time

SUBNET = "10.77.0"
PREFIX = "tfgh"  # every namespace: tfgh<pid>-<name>
_PR_SET_PDEATHSIG = 1


def _ip(*args, check=True):
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("ip %s: %s" % (" ".join(args), r.stderr.strip()))
    return r


def available():
    """None when namespaces can be made here, else why not."""
    if shutil.which("ip") is None:
        return "no `ip` command (iproute2 is not installed)"
    if os.geteuid() != 0:
        return "not root: network namespaces need CAP_SYS_ADMIN"
    # Everything the harness does, once, in a namespace of its own: a
    # container may allow namespaces but not bridges, veth pairs or
    # `ip netns exec` (which mounts /sys).
    probe = "%s%d-probe" % (PREFIX, os.getpid())
    r = _ip("netns", "add", probe, check=False)
    if r.returncode != 0:
        return "cannot create a network namespace: " + r.stderr.strip()
    try:
        steps = [("a bridge", ["-n", probe, "link", "add", "br0", "type", "bridge"]),
                 ("a veth pair", ["-n", probe, "link", "add", "va", "type", "veth", "peer", "name", "vb"]),
                 ("an address", ["-n", probe, "addr", "add", SUBNET + ".2/24", "dev", "va"]),
                 ("a link up", ["-n", probe, "link", "set", "va", "up"])]
        for what, args in steps:
            r = _ip(*args, check=False)
            if r.returncode != 0:
                return "cannot make %s in a network namespace: %s" % (what, r.stderr.strip())
        r = subprocess.run(["ip", "netns", "exec", probe, "true"], capture_output=True, text=True)
        if r.returncode != 0:
            return "cannot run a process in a network namespace: " + r.stderr.strip()
    finally:
        _ip("netns", "del", probe, check=False)
    return None


def remove_stale():
    """Namespaces of an earlier run whose process is gone (killed before it
    could clean up)."""
    listing = _ip("netns", "list", check=False).stdout
    for name in re.findall(r"^(%s(\d+)-\S+)" % PREFIX, listing, re.M):
        ns, pid = name
        if not os.path.exists("/proc/%s" % pid):
            _ip("netns", "del", ns, check=False)


def _die_with_parent():
    # The child dies when the test process does, even by SIGKILL.
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


class Host:
    def __init__(self, net, name, index):
        self.net = net
        self.name = name
        self.ns = "%s%d-%s" % (PREFIX, os.getpid(), name)
        self.address = "%s.%d" % (SUBNET, index)
        self.port = "p-%s" % name[:12]  # the bridge's end of its cable

    def popen(self, argv, env=None, **kwargs):
        """A process in this host's namespace (and only it)."""
        p = subprocess.Popen(["ip", "netns", "exec", self.ns, *argv], env=env, preexec_fn=_die_with_parent, **kwargs)
        self.net.processes.append(p)
        return p

    def run(self, *argv):
        return subprocess.run(["ip", "netns", "exec", self.ns, *argv], capture_output=True, text=True)

    def block(self, other, blocked):
        """Packets from this host to `other` dropped (a one-way partition):
        a blackhole route in this host's namespace only."""
        _ip("-n", self.ns, "route", "add" if blocked else "del", "blackhole", other.address + "/32")


class Network:
    """A switch and hosts; `with Network(["ps", "w0"]) as net: net["ps"]`."""

    def __init__(self, names):
        remove_stale()
        self.processes = []
        self.switch = "%s%d-switch" % (PREFIX, os.getpid())
        self.hosts = {}
        self._closed = False
        self._old_handlers = {}
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            self._old_handlers[sig] = signal.signal(sig, self._on_signal)
        atexit.register(self.close)
        try:
            _ip("netns", "add", self.switch)
            _ip("-n", self.switch, "link", "add", "br0", "type", "bridge")
            _ip("-n", self.switch, "link", "set", "br0", "up")
            for i, name in enumerate(names):
                self._add_host(name, i + 2)
        except BaseException:
            self.close()
            raise

    def _add_host(self, name, index):
        h = Host(self, name, index)
        _ip("netns", "add", h.ns)
        self.hosts[name] = h
        _ip("-n", self.switch, "link", "add", h.port, "type", "veth", "peer", "name", "eth0", "netns", h.ns)
        _ip("-n", self.switch, "link", "set", h.port, "master", "br0", "up")
        _ip("-n", h.ns, "addr", "add", h.address + "/24", "dev", "eth0")
        _ip("-n", h.ns, "link", "set", "lo", "up")
        _ip("-n", h.ns, "link", "set", "eth0", "up")

    def unplug(self, host):
        """The host's cable pulled at the switch: its packets vanish both
        ways, and the host itself sees only that its link lost carrier."""
        _ip("-n", self.switch, "link", "set", host.port, "down")

    def plug(self, host):
        _ip("-n", self.switch, "link", "set", host.port, "up")

    def __getitem__(self, name):
        return self.hosts[name]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _on_signal(self, sig, frame):
        self.close()
        sys.exit(128 + sig)

    def leftovers(self):
        """Namespaces and processes of this network still there."""
        listing = _ip("netns", "list", check=False).stdout
        ours = [h.ns for h in self.hosts.values()] + [self.switch]
        left = [ns for ns in ours if re.search(r"^%s\b" % re.escape(ns), listing, re.M)]
        left += ["pid %d" % p.pid for p in self.processes if p.poll() is None]
        return left

    def close(self):
        if self._closed:
            return
        self._closed = True
        # A second signal (`timeout` passes its own on) must not cut the
        # cleanup short: they wait until it is done.
        for sig in self._old_handlers:
            signal.signal(sig, signal.SIG_IGN)
        for p in self.processes:
            if p.poll() is None:
                p.kill()
        for p in self.processes:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for h in self.hosts.values():
            _ip("netns", "del", h.ns, check=False)
        _ip("netns", "del", self.switch, check=False)
        for sig, old in self._old_handlers.items():
            signal.signal(sig, old)
