"""A server's log: what it prints on stderr reaches its private log file with the known secrets replaced.

A server may print its own token (a debug line, a failed request quoting its headers). Its stderr is
a pipe, not the file: a thread drains it and writes each piece through a
:class:`engine.redaction.scrubber.Scrubber` of the secret variables of hive's environment and the
secret values of the server's entry (its expanded ``env``, ``headers``, ``args`` and URL), so the log
holds ``[redacted: $GITHUB_TOKEN]``, never the token. hive's own lines go through the same pipe. The
log file is 0600 in a 0700 folder.

A log that cannot be written (a full disk, a read-only file system) never stalls the server: the pipe
is still drained, what could not be written is dropped, and :attr:`ServerLog.problem` names the folder
and what was kept.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import BinaryIO, TextIO

import anyio

from engine.disk_full import full_reason
from engine.mcp.config import ServerConfig
from engine.private_files import open_private_bytes
from engine.redaction.scrubber import Scrubber
from engine.sandbox.environment import is_secret

LONG_LINE = 64 * 1024
"""A piece without a line end is written once it is this long (all but its end, which may begin a value)."""
DRAIN_S = 5.0
"""How long closing the log waits for what is left in the pipe (a guard against a child that keeps it open)."""
_READ = 64 * 1024


def server_secrets(server: ServerConfig) -> Iterator[tuple[str, str | None]]:
    """``(kind, value)`` for each value of ``server``'s entry that came from a variable or looks like a secret."""
    written = server.written
    for name, value in server.env.items():
        template = written.env.get(name) if written is not None else value
        if template != value or is_secret(name, value):
            yield f"mcp:{server.name}:{name}", value
    for name, value in server.headers.items():
        template = written.headers.get(name) if written is not None else value
        if template != value or is_secret(name, value) or name.lower() in ("authorization", "cookie"):
            yield f"mcp:{server.name}:{name}", value
    if written is not None:
        for value, template in zip(server.args, written.args, strict=False):
            if value != template:
                yield f"mcp:{server.name}:arg", value
        if server.url != written.url:
            yield f"mcp:{server.name}:url", server.url


def scrubber_for_server(server: ServerConfig) -> Scrubber:
    """The scrubber of ``server``'s log: hive's secret variables and the server's own secret values."""
    return Scrubber.from_environment(known=server_secrets(server))


class ServerLog:
    """The pipe a server writes its stderr into (:attr:`writer`), and the thread that copies it, scrubbed, into the log."""

    def __init__(self, path: Path, scrub: Scrubber) -> None:
        self.path = path
        self.problem: str | None = None
        """Why the log lacks what the server printed (a full disk), naming the folder and what was kept; None when whole."""
        self._log: BinaryIO | None = None
        try:
            self._log = open_private_bytes(path, "a")
        except OSError as error:
            self._give_up(error, "nothing the server prints is logged")
        self._scrub = scrub
        read_end, write_end = os.pipe()
        self.writer: TextIO = os.fdopen(write_end, "w", encoding="utf-8", errors="replace")
        self._thread = threading.Thread(target=self._copy, args=(read_end,), name=f"mcp-log:{path.name}", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Close hive's end of the pipe and wait (boundedly) for the rest to reach the log."""
        self.writer.close()
        self._thread.join(DRAIN_S)

    def _copy(self, read_end: int) -> None:
        pending = b""
        try:
            while chunk := os.read(read_end, _READ):
                pending = self._scrubbed(pending + chunk)
                cut = pending.rfind(b"\n") + 1
                if not cut and len(pending) > LONG_LINE:
                    cut = len(pending) - 4 * self._scrub.longest  # bytes: up to 4 a character
                if cut:
                    self._write(pending[:cut])
                    pending = pending[cut:]
            self._write(self._scrubbed(pending))
        finally:
            os.close(read_end)
            if self._log is not None:
                with contextlib.suppress(OSError):
                    self._log.close()

    def _scrubbed(self, data: bytes) -> bytes:
        if not self._scrub:
            return data
        return self._scrub(data.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")

    def _write(self, data: bytes) -> None:
        if not data or self._log is None:
            return
        try:
            self._log.write(data)
            self._log.flush()
        except OSError as error:
            self._give_up(error, "the log up to here is kept; what the server prints now is dropped")

    def _give_up(self, error: OSError, kept: str) -> None:
        """Stop writing the log (the pipe is still drained, so the server never blocks on its stderr)."""
        log, self._log = self._log, None
        if log is not None:
            with contextlib.suppress(OSError):
                log.close()  # what did not fit is dropped with it
        reason = full_reason(error) or error.strerror or str(error)
        self.problem = f"{reason} writing {self.path.name} in {self.path.parent}; {kept}"


@asynccontextmanager
async def server_log(path: Path, server: ServerConfig) -> AsyncIterator[ServerLog]:
    """The log of ``server``: its ``writer`` is the stderr to give it, whose text reaches ``path`` (0600) scrubbed.

    hive's own lines about the server go the same way (for an HTTP or SSE server, they are all there is).
    """
    relay = ServerLog(path, scrubber_for_server(server))
    try:
        yield relay
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(relay.close)
