#!/usr/bin/env python3
"""A worker under hostile peers (docs/distributed.md, "Limits"), end to end
with a real `tfg --worker`: a storm of Hellos it refuses, each naming a
reply address of its own; a stranger that listens at its reply address
and streams frames back into the connection the worker makes to answer
it; a message whose frames are each under the 1 GiB limit and together
above it, never ended; millions of empty frames of one message; more
connections than it accepts. After
each, a real master script must still run on the same worker; the
worker's open file descriptors (/proc/PID/fd) must stay bounded, and its
log must account for every refusal, rate-limited.

usage: hostile_peers_test.py TFG_BINARY
"""

import os
import re
import socket
import struct
import subprocess
import sys
import threading
import time
import unittest

import worker_test
from worker_test import DEADLINE, MAGIC, PROTOCOL, WorkerFixture, varint, zmtp_dealer

HELLO = 1
# net/protocol.h: kMaxMessageBytes, the limit on a message's frames together,
# and kMaxAttachments, the frames a message may have after its head.
MAX_MESSAGE_BYTES = 1 << 30
MAX_ATTACHMENTS = MAX_MESSAGE_BYTES // 8192
# What a worker holding an unfinished message dropped for its size may
# take in all (an ASan build included): well under its first frame's
# 576 MiB.
UNFINISHED_RSS = 400 << 20
# What 8 million empty frames of one message may add: the first 131,072
# kept as attachments until the message is dropped.
FLOOD_RSS_SLACK = 100 << 20
# interp/distributed/worker.h and net/transport.h: the default caps.
MAX_CONNECTIONS = 256
# Descriptors a storm may add for a moment: the 8 sockets answering
# strangers that may linger at once, each with its connection, and those
# closing.
SLACK_FDS = 48
# What the stranger that streams frames back may make the worker grow by:
# before the worker closed its answering socket at once, 16 MB of empty
# frames (8 million) grew it by about 515 MB (about 64 bytes each in
# ZeroMQ's queue); now it takes in none of them.
STREAM_BYTES = 16 << 20
STREAM_RSS_SLACK = 100 << 20


def string(b):
    return varint(len(b)) + b


def hello(reply_to, registry_hash, session):
    """A Hello of our protocol version (net/wire_messages.cc, SaveHello): fixed
    registry hash, task, an empty cluster, heartbeat 1.0, no compression."""
    envelope = (b"\x01" + struct.pack("<IHB", MAGIC, PROTOCOL, HELLO) + varint(1) + struct.pack("<Q", session) +
                string(reply_to.encode()))
    return envelope + struct.pack("<Q", registry_hash) + string(b"/job:worker/replica:0/task:0") + varint(0) + \
        struct.pack("<d", 1.0) + b"\x00"


def frame_header(size, more):
    """A ZMTP 3.0 frame's flags and size (a long frame's size on 8 bytes)."""
    flags = 0x01 if more else 0x00
    if size < 256:
        return bytes([flags, size])
    return bytes([flags | 0x02]) + struct.pack(">Q", size)


def zmtp_accept_as_router(listener):
    """Accepts the connection a worker makes to a reply address, and answers
    ZeroMQ's handshake (ZMTP 3.0, NULL security) as a ROUTER would."""
    conn, _ = listener.accept()
    conn.settimeout(DEADLINE)
    greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" + b"\x00" * 31
    conn.sendall(greeting)
    got = b""
    while len(got) < 64:
        chunk = conn.recv(64 - len(got))
        if not chunk:
            raise AssertionError("no ZMTP greeting from the worker")
        got += chunk
    body = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"ROUTER"
    conn.sendall(b"\x04" + bytes([len(body)]) + body)
    return conn


class Drain(threading.Thread):
    """Reads a connection until the other side ends it (closed or reset),
    keeping what came; gives up after `seconds` with `ended` false."""

    def __init__(self, conn, seconds):
        super().__init__(daemon=True)
        self.conn = conn
        self.deadline = time.monotonic() + seconds
        self.received = b""
        self.ended = False

    def run(self):
        while time.monotonic() < self.deadline:
            try:
                chunk = self.conn.recv(1 << 16)
            except socket.timeout:  # the socket's timeout is the sender's
                continue
            except OSError:  # reset by the worker
                self.ended = True
                return
            if not chunk:
                self.ended = True
                return
            self.received += chunk


class HostilePeersTest(WorkerFixture):
    prefix = "tfg_hostile_"

    def fds(self, w):
        return len(os.listdir("/proc/%d/fd" % w.proc.pid))

    def rss(self, w):
        with open("/proc/%d/status" % w.proc.pid) as f:
            return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1)) * 1024

    def rss_after_settling(self, w, limit, seconds=20):
        """Waits up to `seconds` for the worker's resident size to fall
        below `limit`; returns the last size."""
        deadline = time.monotonic() + seconds
        rss = self.rss(w)
        while rss >= limit and time.monotonic() < deadline:
            time.sleep(0.05)
            rss = self.rss(w)
        return rss

    def fds_after_settling(self, w, limit, seconds=20):
        """Waits up to `seconds` for the worker's descriptors to fall to
        `limit` (ZeroMQ closes sockets on threads of its own, slowly on a
        loaded machine); returns the last count."""
        deadline = time.monotonic() + seconds
        fds = self.fds(w)
        while fds > limit and time.monotonic() < deadline:
            time.sleep(0.05)
            fds = self.fds(w)
        return fds

    def wait_for_log(self, w, pattern, seconds=30):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if re.search(pattern, w.stderr()):
                return
            time.sleep(0.05)
        self.fail("the worker never logged %r; its log:\n%s" % (pattern, w.stderr()[-3000:]))

    def stream_empty_frames(self, w, conn, frames_a_send):
        """Streams STREAM_BYTES of empty frames, each flagged "more" (2 bytes
        on the wire), into `conn` until the worker stops taking them, while
        draining what comes back. Returns the drain (joined), the bytes
        sent, and the most the worker's resident size reached meanwhile."""
        drain = Drain(conn, DEADLINE)
        drain.start()
        chunk = b"\x01\x00" * frames_a_send
        conn.settimeout(2)  # a worker that reads nothing fills the buffers
        sent, rss_most = 0, 0
        try:
            while sent < STREAM_BYTES:
                conn.sendall(chunk)
                sent += len(chunk)
                rss_most = max(rss_most, self.rss(w))
        except (socket.timeout, BrokenPipeError, ConnectionResetError):
            pass
        drain.join(DEADLINE)
        return drain, sent, rss_most

    def most_fds_while(self, w, seconds):
        """The most descriptors the worker held, sampled for `seconds`."""
        most = 0
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            most = max(most, self.fds(w))
            time.sleep(0.02)
        return most

    def assert_serves_a_master(self, w):
        r = self.run_tfg("--cluster", "worker=" + w.address, self.script(
            'with device("/job:worker/task:0") { c = constant([1.0, 2.0]) * 3.0 }\nprint(run(c))\n'))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, "[3. 6.]\n")

    def refusals_counted(self, log, line_pattern, kind):
        """Refusals of `kind` the log accounts for: its lines, the counts
        noted on them, and the summaries of those left out."""
        lines = re.findall(line_pattern + r".*", log)
        noted = sum(int(n) for n in re.findall(
            line_pattern + r".*\((\d+) more of this kind not logged\)", log))
        summed = sum(int(n) for n in re.findall(r"(\d+) more refusals? like '%s' not logged one by one" %
                                                re.escape(kind), log))
        return len(lines), len(lines) + noted + summed

    # A Hello with other ops is answered, but from one of a few sockets
    # (the oldest closed first) and at most 20 a second: 600 reply
    # addresses must not become 600 sockets, each reconnecting for ever.
    def test_hello_storm_leaves_no_sockets_behind(self):
        w = self.worker()
        self.assert_serves_a_master(w)
        before = self.fds(w)
        d = zmtp_dealer(w.port)
        start = time.monotonic()
        storm = 600
        # Addresses nobody listens on (127.0.0.0/8 is loopback): each
        # connection attempt is refused and, left alone, retried for ever.
        for i in range(storm):
            d.sendall(worker_test.zmtp_frame(
                hello("tcp://127.0.%d.%d:9" % (1 + i // 250, 1 + i % 250), 0x1234, 1000 + i)))
        most = self.most_fds_while(w, 3)
        self.wait_for_log(w, r"more refusals? like 'a Hello of other ops' not logged one by one")
        seconds = time.monotonic() - start
        d.close()
        self.assertLessEqual(most, before + SLACK_FDS, "descriptors: %d before, %d during the storm" % (before, most))
        log = w.stderr()
        logged, accounted = self.refusals_counted(log, r"refused a Hello from tcp://127\.0\.\d+\.\d+:9: op registry "
                                                       r"hash 1234, ours [0-9a-f]+", "a Hello of other ops")
        self.assertEqual(accounted, storm, log[-3000:])
        # A burst of 20 lines, then at most about one a second.
        self.assertGreaterEqual(logged, 20)
        self.assertLessEqual(logged, 20 + seconds + 1)
        self.assertIn("more refusals to answer than 20 a second", log)
        self.assert_serves_a_master(w)
        self.assertLessEqual(self.fds(w), before + SLACK_FDS)

    # A refused Hello is answered at its reply address. A stranger that
    # listens there and, once the worker connects, streams the frames of a
    # message that never ends (libzmq limits neither their number nor
    # their total until the last one) must get its answer and nothing
    # more: the worker takes in none of the frames, closes the connection,
    # and keeps no descriptor for it.
    def test_a_stranger_streaming_frames_back_is_not_read(self):
        w = self.worker()
        self.assert_serves_a_master(w)
        time.sleep(1)  # the master's connection closing
        fds_before = self.fds(w)
        rss_before = self.rss(w)
        listener = socket.create_server(("127.0.0.1", 0))
        listener.settimeout(DEADLINE)
        reply_to = "tcp://127.0.0.1:%d" % listener.getsockname()[1]
        d = zmtp_dealer(w.port)
        d.sendall(worker_test.zmtp_frame(hello(reply_to, 0x1234, 77)))
        conn = zmtp_accept_as_router(listener)
        listener.close()
        drain, sent, rss_most = self.stream_empty_frames(w, conn, 1 << 19)
        rss_most = max(rss_most, rss_before, self.rss(w))
        conn.close()
        d.close()
        self.assertLess(rss_most - rss_before, STREAM_RSS_SLACK,
                        "the worker grew from %d to %d bytes while %d bytes of frames were streamed at it" %
                        (rss_before, rss_most, sent))
        self.assertTrue(drain.ended, "the worker kept the connection to the stranger open")
        self.assertIn(b"built with other ops than the master", drain.received, "the answer never arrived")
        fds = self.fds_after_settling(w, fds_before)
        self.assertLessEqual(fds, fds_before, "descriptors: %d before, %d after" % (fds_before, fds))
        self.assertTrue(w.alive())
        self.assert_serves_a_master(w)

    # A master the worker serves gets its answers on a connection the
    # worker makes to it. One that streams the frames of a message that
    # never ends back on that connection (libzmq would queue them all) has
    # it shut down within about a second, past what ZeroMQ's handshake and
    # heartbeats could have sent.
    def test_a_served_master_streaming_frames_back_is_cut_off(self):
        w = self.worker()
        d = zmtp_dealer(w.port)
        d.sendall(worker_test.zmtp_frame(hello("tcp://127.0.0.1:9", 0x1234, 90)))
        self.wait_for_log(w, r"op registry hash 1234, ours [0-9a-f]+")
        ours = int(re.search(r"op registry hash 1234, ours ([0-9a-f]+)", w.stderr()).group(1), 16)
        rss_before = self.rss(w)
        listener = socket.create_server(("127.0.0.1", 0))
        listener.settimeout(DEADLINE)
        reply_to = "tcp://127.0.0.1:%d" % listener.getsockname()[1]
        d.sendall(worker_test.zmtp_frame(hello(reply_to, ours, 91)))
        conn = zmtp_accept_as_router(listener)
        # The watch runs on the worker's I/O thread, which first sets the
        # session up: what comes back meanwhile is read unwatched (up to
        # 2 MB of a stream at loopback speed under ASan, in one run of 16).
        self.wait_for_log(w, r"session \d+ from %s " % re.escape(reply_to))
        drain, sent, rss_most = self.stream_empty_frames(w, conn, 1 << 16)
        rss_most = max(rss_most, rss_before)
        conn.close()
        listener.close()
        d.close()
        self.assertTrue(drain.ended, "the worker kept reading the master's stream")
        self.wait_for_log(w, r"closed the connection to %s: \d+ bytes came back on it, where only ZeroMQ's handshake "
                             r"and heartbeats come \(at most \d+ by now\)" % re.escape(reply_to))
        self.assertLess(rss_most - rss_before, STREAM_RSS_SLACK,
                        "the worker grew from %d to %d bytes while %d bytes of frames were streamed at it" %
                        (rss_before, rss_most, sent))
        self.assertTrue(w.alive())
        self.assert_serves_a_master(w)

    # Without CURVE any host that reaches the port can run graphs, so a
    # worker reachable beyond loopback says so when it starts.
    def test_listening_beyond_loopback_without_curve_is_warned_of(self):
        log_path = os.path.join(self.dir, "exposed.log")

        def log_text():
            with open(log_path) as f:
                return f.read()

        with open(log_path, "w") as log:
            proc = subprocess.Popen([worker_test.TFG, "--worker", "--listen", "tcp://0.0.0.0:0", "--threads", "1"],
                                    stdout=subprocess.PIPE, stderr=log, text=True)
            try:
                line = proc.stdout.readline()
                self.assertRegex(line, r"^tfg worker listening on tcp://0\.0\.0\.0:\d+$")
                address = line.split()[-1]
                deadline = time.monotonic() + DEADLINE
                while "warning" not in log_text() and time.monotonic() < deadline:
                    time.sleep(0.05)
            finally:
                proc.terminate()
                proc.wait(DEADLINE)
                proc.stdout.close()
        self.assertIn("tfg[net]: warning: listening on %s without CURVE: any host that can reach this port can run "
                      "graphs here. Turn CURVE on" % address, log_text())

    # Three frames, each under the 1 GiB limit of one frame, the last
    # never ended: the message is dropped at the frame that takes it over
    # the limit, what it held is freed while the connection is still open,
    # and the rest of its frames are read and discarded.
    def test_frames_above_the_limit_together_are_refused(self):
        w = self.worker()
        d = zmtp_dealer(w.port)
        d.settimeout(DEADLINE)  # a loaded machine may take a while to read 1.1 GiB
        head = hello("tcp://127.0.0.1:9", 0x1234, 7)
        chunk = bytes(16 << 20)
        part = 36 * len(chunk)  # two of them: 1.125 GiB
        d.sendall(frame_header(len(head), True) + head)
        for _ in range(2):
            d.sendall(frame_header(part, True))
            for _ in range(part // len(chunk)):
                d.sendall(chunk)
        self.wait_for_log(w, r"dropped a message from tcp://127\.0\.0\.1:\d+ at its frame 3, %d bytes so far \(a "
                             r"message may have a head and at most \d+ attachments, of %d bytes in all\); the rest "
                             r"of it is read and discarded" % (len(head) + 2 * part, MAX_MESSAGE_BYTES))
        # The first part (576 MiB) is freed, and the second is not kept.
        self.assertLess(self.rss_after_settling(w, UNFINISHED_RSS), UNFINISHED_RSS)
        d.close()
        # Refused before decoding: no Hello was answered.
        self.assertNotIn("refused a Hello", w.stderr())
        self.assertTrue(w.alive())
        self.assert_serves_a_master(w)

    # Empty frames of a message that never ends, far more than a message
    # may have: libzmq would queue each (about 64 bytes apiece, 1.3 GB for
    # 20 million); the worker drops the message at its 131,073rd frame and
    # holds none of the rest.
    def test_a_flood_of_empty_frames_holds_nothing(self):
        w = self.worker()
        before = self.rss(w)
        d = zmtp_dealer(w.port)
        d.settimeout(DEADLINE)
        head = hello("tcp://127.0.0.1:9", 0x1234, 8)
        d.sendall(frame_header(len(head), True) + head)
        empties = frame_header(0, True) * (1 << 20)
        for _ in range(8):  # 8 million frames, 16 MB
            d.sendall(empties)
        self.wait_for_log(w, r"dropped a message from tcp://127\.0\.0\.1:\d+ at its frame %d, %d bytes so far" %
                          (MAX_ATTACHMENTS + 2, len(head)))
        self.assertLess(self.rss(w) - before, FLOOD_RSS_SLACK)
        d.close()
        self.assert_serves_a_master(w)

    # Connections beyond the cap are closed as soon as accepted; ones that
    # never finish ZeroMQ's handshake are closed after 5 s.
    def test_connections_beyond_the_cap_are_closed(self):
        w = self.worker()
        before = self.fds(w)
        extra = 100
        conns = []
        try:
            for _ in range(MAX_CONNECTIONS + extra):
                conns.append(socket.create_connection(("127.0.0.1", w.port), timeout=5))
            self.wait_for_log(w, r"refused a connection: %d are open already \(the limit\)" % MAX_CONNECTIONS)
            # On a loaded machine the worker may still be closing the
            # last connections over the cap when the log line appears:
            # give it 2 s to get there (well before the 5 s handshake limit
            # would close the others too), then it must stay there.
            bound = before + MAX_CONNECTIONS + SLACK_FDS
            deadline = time.monotonic() + 2
            while self.fds(w) > bound and time.monotonic() < deadline:
                time.sleep(0.05)
            most = self.most_fds_while(w, 1)
            self.assertLessEqual(most, bound,
                                 "descriptors: %d before, %d with %d connections" % (before, most, len(conns)))
            # The handshake limit closes the rest: the worker then takes
            # a master again.
            deadline = time.monotonic() + 20
            while self.fds(w) > before + 8 and time.monotonic() < deadline:
                time.sleep(0.1)
            self.assertLessEqual(self.fds(w), before + 8)
            self.assert_serves_a_master(w)
        finally:
            for c in conns:
                c.close()
        log = w.stderr()
        logged, accounted = self.refusals_counted(
            log, r"refused a connection: %d are open already \(the limit\)" % MAX_CONNECTIONS, "a connection over the cap")
        self.assertGreaterEqual(logged, 1)
        self.assertLessEqual(accounted, extra)


if __name__ == "__main__":
    worker_test.TFG = os.path.abspath(sys.argv.pop(1))
    unittest.main()
