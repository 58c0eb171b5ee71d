"""stdout belongs to the protocol: hive's own output, a library's stray print and a child's output go to stderr."""

from __future__ import annotations

import asyncio
import os
import sys
from typing import IO


def take_stdout() -> IO[bytes]:
    """The protocol's channel: the original stdout, kept on a file of its own; file descriptor 1 and
    ``sys.stdout`` now write to stderr, so nothing else can reach the editor's reader."""
    sys.stdout.flush()
    protocol = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return protocol


async def protocol_streams(channel: IO[bytes]) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Asyncio streams over stdin (the editor's requests) and ``channel`` (hive's answers and notifications)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=50 * 1024 * 1024)  # an embedded file arrives on one line
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(_Drained, channel)
    return reader, asyncio.StreamWriter(transport, protocol, None, loop)


class _Drained(asyncio.streams.FlowControlMixin):
    """The write side's protocol: flow control for ``StreamWriter.drain``."""
