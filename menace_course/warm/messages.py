"""Messages between ``menace check`` and the warm checker: length-framed JSON, fds alongside.

A message is 4 bytes of length (big-endian) and that many bytes of JSON. The first message of
a check carries the client's fds 0, 1 and 2 (``SCM_RIGHTS``): the forked check writes to
the student's terminal itself, so colours, widths and pipes behave as they do in-process.

Example:
    send(connection, {"op": "status"})
    reply, _ = receive(connection)
"""

from __future__ import annotations

import _socket  # socket.py's own C part: socket.py itself would cost the client about 6 ms
import array
import json
import os
import struct

TYPE_CHECKING = False  # (typing itself costs the client 6 ms)
if TYPE_CHECKING:
    from typing import Any

#: The largest message either side accepts (a request carries the whole environment).
MESSAGE_LIMIT = 4 * 1024 * 1024
_LENGTH = struct.Struct(">I")


class MessageError(Exception):
    """The other side closed the connection, or sent something that is not a message."""


class Connection(_socket.socket):
    """The client's end: a plain socket that closes at the end of a ``with`` block.

    (:class:`socket.socket` does the same, but importing :mod:`socket` costs the client more
    than the rest of its front door; a :class:`socket.socket` works here as well.)
    """

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *_exc_info: object) -> None:
        self.close()


def send(connection: _socket.socket, message: dict[str, Any], fds: list[int] | None = None) -> None:
    """Send one message; ``fds`` go with its first bytes."""
    body = json.dumps(message).encode("utf-8", "surrogateescape")
    frame = _LENGTH.pack(len(body)) + body
    if fds:
        # what socket.send_fds does
        sent = connection.sendmsg([frame], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", fds))])
        frame = frame[sent:]
    connection.sendall(frame)


def receive(connection: _socket.socket, max_fds: int = 0) -> tuple[dict[str, Any], list[int]]:
    """Read one message (and up to ``max_fds`` fds sent with it), and not a byte more.

    A message that follows on the same connection stays there for the next call: the copy
    of a check that ends at once (a file that is not there) sends its exit code right after
    its pid, and both may arrive in one read.

    Raises:
        MessageError: the connection closed or timed out first, or the message is too long or not JSON.
    """
    fds: list[int] = []
    try:
        if max_fds:  # the warm checker's side only, which has socket.py loaded already
            import socket

            head, fds, _, _ = socket.recv_fds(connection, _LENGTH.size, max_fds)  # type: ignore[arg-type]  # a socket.socket there
        else:
            head = connection.recv(_LENGTH.size)
        if not head:
            raise MessageError("the connection closed")
        (length,) = _LENGTH.unpack(head + _exactly(connection, _LENGTH.size - len(head)))
        if length > MESSAGE_LIMIT:
            raise MessageError(f"a message of {length} bytes is over the limit")
        message = json.loads(_exactly(connection, length).decode("utf-8", "surrogateescape"))
        if not isinstance(message, dict):
            raise MessageError("a message is a JSON object")
    except (MessageError, ValueError, OSError) as problem:  # (a timeout too: the fds are closed)
        for fd in fds:
            _close(fd)
        raise MessageError(str(problem)) from None
    return message, fds


def _exactly(connection: _socket.socket, size: int) -> bytes:
    """The next ``size`` bytes of the connection."""
    parts = []
    while size > 0:
        data = connection.recv(min(size, 65536))
        if not data:
            raise MessageError("the connection closed in the middle of a message")
        parts.append(data)
        size -= len(data)
    return b"".join(parts)


def _close(fd: int) -> None:
    try:
        os.close(fd)
    except OSError:
        pass
