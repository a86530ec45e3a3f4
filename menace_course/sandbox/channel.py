"""The grader's two pipes to a sandboxed child, where every read and every write has a deadline.

A child controls the other end of both pipes, so it decides how fast they drain: it can
shrink the request pipe to one page (``F_SETPIPE_SZ``) and never read it, or keep the
reply pipe silent. A plain blocking ``os.write`` of the next request would then never
return, and ``menace check`` would hang for ever. Here the grader's ends are
non-blocking: a write that cannot go through waits in :func:`select.poll` for the pipe
to become writable, and gives up with :class:`TimeoutError` at the deadline. Reads work
the same way, and a reply longer than its cap is refused before it is buffered.

Deadlines are absolute :func:`time.monotonic` values, so one deadline can bound a whole
exchange (send a request, then read its reply) however the time is split between the two.

Requests sent ahead in a batch (:meth:`Channel.queue`) go out while replies are read: the
child answers the first ones while the last are still waiting to be written, so neither
side waits for the other to drain a full pipe.
"""

from __future__ import annotations

import math
import os
import select
import time


class ChannelClosed(EOFError):
    """The child closed its end of a pipe (it exited, crashed or closed the fd itself)."""


class ReplyTooLarge(ValueError):
    """The child sent more than the cap without ending the line."""


class Channel:
    """The grader's write end of the request pipe and read end of the reply pipe."""

    def __init__(self, requests: int, replies: int, reply_cap: int) -> None:
        """Take ownership of both fds and make them non-blocking."""
        self.requests = requests
        self.replies = replies
        self.reply_cap = reply_cap
        #: what came from the child and was not yet given out, from :attr:`_start` on (a
        #: batch's replies come many to a read: a line is given without copying the rest)
        self._buffer = bytearray()
        self._start = 0
        self._outgoing = bytearray()
        os.set_blocking(requests, False)
        os.set_blocking(replies, False)
        # made once, not once a wait: a check waits on the child hundreds of times
        self._writable = select.poll()
        self._writable.register(requests, select.POLLOUT)
        self._readable = select.poll()
        self._readable.register(replies, select.POLLIN)
        self._either = select.poll()  # a reply, or room for the requests still queued
        self._either.register(replies, select.POLLIN)
        self._either.register(requests, select.POLLOUT)

    def queue(self, data: bytes) -> None:
        """Write what the pipe takes now of ``data``; the rest goes out as replies are read.

        For requests sent ahead: the child reads them one by one as it answers, so the
        pipe never has to hold a whole batch.
        """
        self._outgoing += data
        self._pump()

    def _pump(self) -> None:
        """Write what the request pipe takes now, without waiting."""
        try:
            written = os.write(self.requests, self._outgoing)
        except BlockingIOError:
            return
        except OSError:  # BrokenPipeError: the child closed its end and will read no more
            self._outgoing.clear()
            return
        del self._outgoing[:written]

    def send(self, data: bytes, deadline: float) -> None:
        """Queue ``data`` and write everything queued before ``deadline``.

        What could not be written stays queued: calling again with ``b""`` and a later
        deadline goes on where the last call stopped.

        Raises:
            TimeoutError: the child did not drain the pipe in time.
            ChannelClosed: the child's end is closed.
        """
        if data and not self._outgoing:  # the usual case: the whole request goes in one write
            try:
                written = os.write(self.requests, data)
            except BlockingIOError:
                written = 0
            except OSError as error:  # BrokenPipeError: the child closed its end
                raise ChannelClosed(str(error)) from None
            if written == len(data):
                return
            data = data[written:]
        self._outgoing += data
        while self._outgoing:
            try:
                written = os.write(self.requests, self._outgoing)
            except BlockingIOError:
                written = 0
            except OSError as error:  # BrokenPipeError: the child closed its end
                raise ChannelClosed(str(error)) from None
            del self._outgoing[:written]
            if self._outgoing:
                self._wait(deadline, write=True)

    def has_line(self) -> bool:
        """True when a whole line is already read: :meth:`receive` gives it without waiting."""
        return self._buffer.find(b"\n", self._start) >= 0

    def receive(self, deadline: float) -> bytes:
        """The next line from the child (without its newline), read before ``deadline``.

        Raises:
            TimeoutError: no whole line came in time.
            ChannelClosed: the child closed the pipe first.
            ReplyTooLarge: the line is longer than the cap.
        """
        searched = self._start  # no newline before here
        while (end := self._buffer.find(b"\n", searched)) < 0:
            searched = len(self._buffer)
            if searched - self._start > self.reply_cap:
                raise ReplyTooLarge(f"a reply longer than {self.reply_cap} bytes")
            # Asked first, not learnt from a failed read (a BlockingIOError costs more than
            # the poll), in one poll: what is already there is read whatever the time.
            left = deadline - time.monotonic()
            if self._outgoing:  # requests sent ahead still to write: write them as room comes
                self._pump()
            poller = self._either if self._outgoing else self._readable
            events = poller.poll(max(1, math.ceil(left * 1000)) if left > 0 else 0)
            if not events:
                raise TimeoutError
            if not any(fd == self.replies for fd, _ in events):
                continue  # only room to write: the loop writes, then waits again
            try:
                chunk = os.read(self.replies, 65536)
            except BlockingIOError:
                continue
            except OSError as error:
                raise ChannelClosed(str(error)) from None
            if not chunk:
                raise ChannelClosed("the child closed its reply pipe")
            self._buffer += chunk
        line = bytes(self._buffer[self._start : end])
        self._start = end + 1
        if self._start == len(self._buffer):
            self._buffer.clear()
            self._start = 0
        elif self._start > 65536:  # keep the buffer short: drop what was given out
            del self._buffer[: self._start]
            self._start = 0
        if len(line) > self.reply_cap:
            raise ReplyTooLarge(f"a reply longer than {self.reply_cap} bytes")
        return line

    def _wait(self, deadline: float, *, write: bool) -> None:
        # poll, not select: select cannot watch an fd numbered 1024 or more, and a
        # long-running service may well hold that many.
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        poller = self._writable if write else self._readable
        if not poller.poll(max(1, math.ceil(left * 1000))):
            raise TimeoutError

    def close(self) -> None:
        """Close both fds (idempotent)."""
        for fd in (self.requests, self.replies):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.requests = self.replies = -1
        self._buffer.clear()
        self._start = 0
        self._outgoing.clear()
