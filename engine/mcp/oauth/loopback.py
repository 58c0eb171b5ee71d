"""The one-shot loopback listener the browser is redirected to after a login: ``http://127.0.0.1:PORT/callback``.

It answers one request to ``/callback`` whose ``state`` is the one hive sent (the browser gets a
short page saying the tab can be closed), then stops. A request with another ``state`` is refused
(a page from elsewhere cannot slip its code in) and the login fails; other paths get a 404 and are
otherwise ignored.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import Sequence
from urllib.parse import parse_qs, urlsplit

from msgspec import Struct

CALLBACK_PATH = "/callback"
_MOST_REQUEST_BYTES = 16 * 1024
_DONE_PAGE = "<!doctype html><title>hive</title><p>hive has what it needs: you can close this tab.</p>"
_REFUSED_PAGE = "<!doctype html><title>hive</title><p>hive refused this answer: {reason}</p>"


class LoginFailed(Exception):
    """The authorization did not complete; ``str()`` says why, in one line."""


class CallbackAnswer(Struct, frozen=True):
    """What the authorization server sent back through the browser."""

    code: str | None
    state: str | None
    iss: str | None


def redirect_uri(port: int) -> str:
    """The redirect URI hive registers and listens on."""
    return f"http://127.0.0.1:{port}{CALLBACK_PATH}"


def reserve_port(preferred: Sequence[int], *, or_any: bool) -> socket.socket:
    """A listening socket on ``127.0.0.1``: the first free port of ``preferred``, else (``or_any``) any free one.

    A ``LoginFailed`` naming the port when none of them is free and another may not be taken.
    """
    busy = ""
    for port in preferred:
        try:
            return _listening(port)
        except OSError as error:
            busy = f"cannot listen on 127.0.0.1:{port} for the login's redirect ({error.strerror})"
    if or_any or not busy:
        return _listening(0)
    raise LoginFailed(f"{busy}; set another oauth.callback_port for this server")


def _listening(port: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", port))
        sock.listen()
    except OSError:
        sock.close()
        raise
    return sock


def port_of(sock: socket.socket) -> int:
    """The port ``sock`` is bound to."""
    return int(sock.getsockname()[1])


class LoopbackListener:
    """Serves the reserved socket ``sock`` until the one redirect that carries ``state`` arrives."""

    def __init__(self, sock: socket.socket, state: str) -> None:
        self.sock = sock
        self.state = state
        self._answer: asyncio.Future[CallbackAnswer] | None = None
        self._server: asyncio.Server | None = None

    async def start(self) -> None:
        """Start answering on the socket (it is already bound and listening)."""
        self._answer = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, sock=self.sock)

    async def answer(self) -> CallbackAnswer:
        """Wait for the redirect, then stop listening; a ``LoginFailed`` when its state is not ours or it carries an error."""
        assert self._answer is not None
        try:
            return await self._answer
        finally:
            await self.close()

    def fail(self, reason: str) -> None:
        """Stop waiting: the browser (or the command that opens the URL) failed, for ``reason``."""
        self._settle(LoginFailed(reason))

    async def close(self) -> None:
        """Stop listening (idempotent)."""
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()
        self.sock.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await reader.readuntil(b"\r\n\r\n")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        target = head[:_MOST_REQUEST_BYTES].split(b"\r\n", 1)[0].decode("latin-1").split(" ")
        path_and_query = target[1] if len(target) >= 2 else ""
        status, page = self._judge(path_and_query)
        body = page.encode()
        writer.write(
            f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
            + body
        )
        with contextlib.suppress(ConnectionError):
            await writer.drain()
        writer.close()

    def _judge(self, path_and_query: str) -> tuple[str, str]:
        parts = urlsplit(path_and_query)
        if parts.path != CALLBACK_PATH:
            return "404 Not Found", _REFUSED_PAGE.format(reason="not the login's address")
        query = {key: values[0] for key, values in parse_qs(parts.query).items()}
        if query.get("state") != self.state:
            self._settle(LoginFailed("the authorization answer's state did not match the login's (refused)"))
            return "400 Bad Request", _REFUSED_PAGE.format(reason="its state is not the one hive sent")
        if "error" in query:
            said = query.get("error_description") or query["error"]
            self._settle(LoginFailed(f"the authorization server refused the login: {said}"))
            return "200 OK", _REFUSED_PAGE.format(reason="the authorization server refused the login")
        self._settle(CallbackAnswer(code=query.get("code"), state=query.get("state"), iss=query.get("iss")))
        return "200 OK", _DONE_PAGE

    def _settle(self, outcome: CallbackAnswer | LoginFailed) -> None:
        if self._answer is None or self._answer.done():
            return
        if isinstance(outcome, LoginFailed):
            self._answer.set_exception(outcome)
        else:
            self._answer.set_result(outcome)
