"""A Unix-socket server on a thread that answers every connection with the same bytes, as git's credential
cache daemon does, and counts the connections.

``close()`` shuts the listening socket down and waits for the thread before closing it: a socket closed
while its thread is about to call ``accept()`` frees its descriptor number, and a thread that then
accepts on that number takes the connections of whatever socket got it next (in one test process, the
next test's model server: hive then read this daemon's password as an HTTP status line).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from pathlib import Path

_JOIN_S = 30  # a failure guard only: a shut-down socket ends the thread's accept() at once


class UnixDaemon:
    """Listens on ``path``; answers each connection with ``answer`` (after a request ending in a blank line when
    ``reads_request``)."""

    def __init__(self, path: Path, answer: bytes, *, reads_request: bool = False) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.connections = 0
        self._answer = answer
        self._reads_request = reads_request
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        self._server.listen(8)
        self._thread = threading.Thread(target=self._serve, daemon=True, name=f"unix-daemon:{path.name}")
        self._thread.start()

    def close(self) -> None:
        """Stop listening: the thread's accept() ends, then the socket is closed."""
        with contextlib.suppress(OSError):
            self._server.shutdown(socket.SHUT_RDWR)
        self._thread.join(_JOIN_S)
        self._server.close()

    def _serve(self) -> None:
        while True:
            try:
                connection, _ = self._server.accept()
            except OSError:
                return
            self.connections += 1
            with connection:
                request = b""
                while self._reads_request and not request.endswith(b"\n\n") and (chunk := connection.recv(1024)):
                    request += chunk
                with contextlib.suppress(OSError):
                    connection.sendall(self._answer)
