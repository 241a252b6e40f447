#!/usr/bin/env python3
"""Peers of different protocol versions, end to end: a worker answers a
Hello of a later version with a WrongVersion in its own, and a master told
so by a worker of a later version stops with the worker's reason instead of
timing out. The other version's side is played here, in ZMTP written by
hand (worker_test.zmtp_dealer), from the stable layout at the top of
net/wire.cc.

usage: versions_test.py TFG_BINARY
"""

import os
import socket
import struct
import subprocess
import sys
import time
import unittest

import worker_test
from worker_test import MAGIC, PROTOCOL, WorkerFixture, varint, zmtp_dealer, zmtp_frame

LATER = PROTOCOL + 1
HELLO, WRONG_VERSION = 1, 255
SECONDS = 20  # for any one frame to come


def envelope(version, kind, request_id, session_id, reply_to):
    return (b"\x01" + struct.pack("<IHB", MAGIC, version, kind) + varint(request_id) +
            struct.pack("<Q", session_id) + varint(len(reply_to)) + reply_to.encode())


def read_varint(data, at):
    n = shift = 0
    while True:
        b = data[at]
        at += 1
        n |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            return n, at


def parse_envelope(frame):
    """(version, kind, request id, session id, reply address, body)."""
    order, magic, version, kind = struct.unpack_from("<BIHB", frame, 0)
    assert (order, magic) == (1, MAGIC), frame[:8]
    request_id, at = read_varint(frame, 8)
    (session_id,) = struct.unpack_from("<Q", frame, at)
    n, at = read_varint(frame, at + 8)
    return version, kind, request_id, session_id, frame[at:at + n].decode(), frame[at + n:]


class Listener:
    """A ZMTP 3.0 peer that takes one connection, as a ROUTER, and reads the
    frames a tfg DEALER sends it (commands skipped)."""

    def __init__(self):
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(SECONDS)
        self.address = "tcp://127.0.0.1:%d" % self.sock.getsockname()[1]
        self.conn = None

    def accept(self):
        self.conn, _ = self.sock.accept()
        self.conn.settimeout(SECONDS)
        greeting = b"\xff" + b"\x00" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\x00") + b"\x00" * 32
        self.conn.sendall(greeting)
        self.read(64)
        body = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"ROUTER"
        self.conn.sendall(b"\x04" + bytes([len(body)]) + body)

    def read(self, n):
        out = b""
        while len(out) < n:
            chunk = self.conn.recv(n - len(out))
            if not chunk:
                raise AssertionError("the peer closed the connection")
            out += chunk
        return out

    def frame(self):
        while True:
            flags = self.read(1)[0]
            size = struct.unpack(">Q", self.read(8))[0] if flags & 0x02 else self.read(1)[0]
            payload = self.read(size)
            if not flags & 0x04:
                return payload

    def close(self):
        if self.conn:
            self.conn.close()
        self.sock.close()


class VersionsTest(WorkerFixture):
    prefix = "tfg_versions_"

    def test_worker_answers_a_later_versions_hello_in_its_own(self):
        w = self.worker()
        master = Listener()
        try:
            d = zmtp_dealer(w.port)
            # The body of a Hello of version LATER is whatever that version
            # says: the worker reads only the envelope.
            d.sendall(zmtp_frame(envelope(LATER, HELLO, 7, 0xABCDEF, master.address) + b"\x99 later body"))
            master.accept()
            version, kind, request_id, session_id, reply_to, body = parse_envelope(master.frame())
            d.close()
        finally:
            master.close()
        self.assertEqual((version, kind, request_id, session_id), (PROTOCOL, WRONG_VERSION, 7, 0xABCDEF))
        self.assertEqual(reply_to, w.address)
        reason, at = read_varint(body, 0)
        self.assertEqual(body[at:].decode(),
                         "the worker at %s speaks tfg protocol version %d, the master %d: start every task "
                         "from the same tfg build" % (w.address, PROTOCOL, LATER))
        self.assertEqual(len(body), at + reason)
        self.assertIn("protocol version %d (this tfg speaks %d)" % (LATER, PROTOCOL), w.stderr())
        self.assertTrue(w.alive())

    def test_master_stops_with_the_reason_of_a_later_worker(self):
        worker = Listener()
        script = self.script('with device("/job:worker/task:0") { c = constant(1.0) }\nprint(run(c))\n')
        start = time.monotonic()
        master = subprocess.Popen([worker_test.TFG, "--quiet", "--cluster", "worker=" + worker.address, script],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            worker.accept()
            version, kind, request_id, session_id, reply_to, _ = parse_envelope(worker.frame())
            self.assertEqual((version, kind), (PROTOCOL, HELLO))
            reason = b"a worker of version %d says no" % LATER
            answer = zmtp_dealer(int(reply_to.rsplit(":", 1)[1]))
            answer.sendall(zmtp_frame(envelope(LATER, WRONG_VERSION, request_id, session_id, worker.address) +
                                      varint(len(reason)) + reason))
            out, err = master.communicate(timeout=worker_test.DEADLINE)
            answer.close()
        finally:
            if master.poll() is None:
                master.kill()
                master.communicate()
            worker.close()
        self.assertNotEqual(master.returncode, 0)
        self.assertEqual(out, "")
        self.assertIn("task /job:worker/replica:0/task:0 refused the session: a worker of version %d says no" % LATER,
                      err)
        # Told, not timed out: well within the 5 s handshake limit.
        self.assertLess(time.monotonic() - start, 5)


if __name__ == "__main__":
    worker_test.TFG = os.path.abspath(sys.argv.pop(1))
    unittest.main()
