"""Length-prefixed messages over a Unix socket: a JSON header and optional bytes.

Nothing here unpickles: the header is JSON and the payload is opaque bytes
(``autograder.untrusted.plain`` data). Sizes are bounded so that a hostile worker cannot
make the grader allocate without limit.
"""

from __future__ import annotations

import json
import socket
import struct
import time
from typing import Any

PREFIX = struct.Struct(">II")
MAX_HEADER = 1 * 2**20
MAX_PAYLOAD = 320 * 2**20


class ChannelClosed(ConnectionError):
    """The other side went away (the worker died or exited)."""


class ChannelTimeout(TimeoutError):
    """No complete message arrived before the deadline."""


class ProtocolError(ValueError):
    """The other side sent something that is not a valid message."""


def send(
    sock: socket.socket, header: dict[str, Any], payload: bytes = b"", deadline: float | None = None
) -> None:
    """Send one message; with a ``deadline`` (a ``time.monotonic()`` value), a peer that stops
    reading raises ``ChannelTimeout`` instead of blocking forever."""
    head = json.dumps(header, allow_nan=False).encode("utf-8")
    data = memoryview(PREFIX.pack(len(head), len(payload)) + head + payload)
    while data:
        _time_left(sock, deadline)
        try:
            sent = sock.send(data[: 1 << 20])
        except TimeoutError:
            raise ChannelTimeout() from None
        data = data[sent:]


def recv(sock: socket.socket, deadline: float | None = None) -> tuple[dict[str, Any], bytes]:
    """Receive one message; ``deadline`` is a ``time.monotonic()`` value or None."""
    head_len, payload_len = PREFIX.unpack(_read_exactly(sock, PREFIX.size, deadline))
    if head_len > MAX_HEADER or payload_len > MAX_PAYLOAD:
        raise ProtocolError(f"message too large ({head_len} + {payload_len} bytes)")
    try:
        header = json.loads(_read_exactly(sock, head_len, deadline))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ProtocolError(f"malformed header: {error}") from None
    if not isinstance(header, dict):
        raise ProtocolError("header is not a JSON object")
    return header, _read_exactly(sock, payload_len, deadline)


def _time_left(sock: socket.socket, deadline: float | None) -> None:
    """Make the next socket operation wait at most until ``deadline`` (None: no limit)."""
    if deadline is None:
        sock.settimeout(None)
        return
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise ChannelTimeout()
    sock.settimeout(remaining)


def _read_exactly(sock: socket.socket, size: int, deadline: float | None) -> bytes:
    chunks = bytearray()
    while len(chunks) < size:
        _time_left(sock, deadline)
        try:
            chunk = sock.recv(min(size - len(chunks), 1 << 20))
        except TimeoutError:
            raise ChannelTimeout() from None
        except OSError as error:
            raise ChannelClosed(str(error)) from None
        if not chunk:
            raise ChannelClosed("end of stream")
        chunks += chunk
    return bytes(chunks)
