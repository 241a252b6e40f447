"""A program driven through a real pseudo-terminal, for the REPL tests.

Stdlib only (pty, select): the tests must not need pip packages.
"""

import fcntl
import os
import pty
import re
import select
import signal
import struct
import termios
import time


class PtySession:
    """Runs argv on a fresh pty; send() types, expect() waits for output."""

    def __init__(self, argv, env, cols=100, rows=30):
        pid, fd = pty.fork()
        if pid == 0:  # the child: its stdin/stdout/stderr are the pty
            try:
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        self.output = b""  # everything read so far
        self.mark = 0      # expect() searches from here
        self.status = None

    def send(self, text, wait_for_editor=True):
        """Types `text`. First waits until the program has put the terminal
        in raw mode: keys typed while it is still in canonical mode are
        handled by the kernel (Ctrl-D becomes an end-of-file, escape
        sequences are echoed) instead of reaching the line editor."""
        if wait_for_editor:
            self.wait_for_raw_mode()
        os.write(self.fd, text.encode())

    def wait_for_raw_mode(self, timeout=10):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            # On Linux the master side reports the terminal's settings.
            if not termios.tcgetattr(self.fd)[3] & termios.ICANON:
                return
            self._read_some(min(deadline, time.monotonic() + 0.01))
        raise AssertionError("the terminal never left canonical mode; output:\n" + self.text())

    def _read_some(self, deadline):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([self.fd], [], [], left)
        if not ready:
            return False
        try:
            chunk = os.read(self.fd, 4096)
        except OSError:  # EIO: the child closed the terminal
            chunk = b""
        if not chunk:
            return False
        self.output += chunk
        return True

    def expect(self, pattern, timeout=30):
        """Waits until `pattern` (a regex over the text after the mark)
        appears; moves the mark past it and returns the match."""
        regex = re.compile(pattern.encode() if isinstance(pattern, str) else pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.output, self.mark)
            if match:
                self.mark = match.end()
                return match
            if not self._read_some(deadline):
                raise AssertionError(
                    "timed out waiting for %r; output since the last match:\n%s"
                    % (pattern, self.text(self.mark)))

    def text(self, start=0):
        return self.output[start:].decode(errors="replace")

    def poll_exit(self, timeout):
        """The exit code (-signal when killed) once the child exits within
        `timeout` seconds, else None."""
        deadline = time.monotonic() + timeout
        while self.status is None and time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(status)
                self._drain()
                break
            self._read_some(min(deadline, time.monotonic() + 0.1))
        return self.status

    def wait(self, timeout=30):
        """Waits for the child to exit; returns its exit code."""
        if self.poll_exit(timeout) is None:
            self.kill()
            raise AssertionError("the program did not exit; output:\n" + self.text())
        return self.status

    def _drain(self):
        while self._read_some(time.monotonic() + 0.2):
            pass

    def kill(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.status = -signal.SIGKILL

    def close(self):
        self.kill()
        os.close(self.fd)
