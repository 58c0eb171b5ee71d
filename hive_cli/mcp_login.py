"""``hive mcp login`` and ``logout``, and how a person is sent to an authorization URL (browser, command, or printed).

``--open-with CMD`` runs CMD with the URL as its last argument (for CI, remote shells and test
servers that approve at once); without it hive opens the browser when there is a display, and
always prints the URL so a person on a remote shell can open it elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from engine.errors import RunError, UserError
from engine.mcp.oauth.interaction import GiveUp, Interaction, people_present
from engine.mcp.oauth.loopback import LoginFailed
from engine.mcp.oauth.store import StoredLogin
from engine.paths import project_root
from engine.programs import given_program, trusted_program
from hive_cli.terminal_text import echo

Opener = Callable[[str, GiveUp], Awaitable[None]]


def login(cwd: Path, name: str, open_with: str | None) -> None:
    """Authorize server ``name`` now and say what was stored, and for how long."""
    from engine.mcp.oauth.login import check_can_log_in, log_in
    from hive_cli.mcp_inspect import configured

    server = configured(cwd, name).servers[0]
    check_can_log_in(server)
    with reaching_person(cwd, open_with):
        try:
            stored = asyncio.run(log_in(server))
        except LoginFailed as failed:
            raise RunError(f"MCP server {name}: {failed}") from None
    echo(f"Logged in to MCP server {name}: {describe_stored(stored)}")


def logout(cwd: Path, name: str) -> None:
    """Forget what is stored for server ``name``."""
    from engine.mcp.oauth.login import log_out

    gone = log_out(name)
    if gone:
        echo(f"Logged out of MCP server {name}: removed {', '.join(str(path) for path in gone)}")
    else:
        echo(f"MCP server {name}: no login stored")


def describe_stored(stored: StoredLogin) -> str:
    """What a login stored, without any secret: where, until when, whether it renews itself."""
    parts = [f"token kept in {stored.path} (readable only by you)"]
    if stored.expires_at is not None:
        minutes = max(0, round((stored.expires_at - time.time()) / 60))
        parts.append(f"expires in {minutes} min")
    else:
        parts.append("no expiry given")
    parts.append(
        "renewed with its refresh token"
        if stored.has_refresh_token
        else "no refresh token: log in again when it expires"
    )
    if stored.scope:
        parts.append(f"scope {stored.scope}")
    return "; ".join(parts)


@contextmanager
def reaching_person(cwd: Path, open_with: str | None) -> Iterator[None]:
    """Within this block a server that wants a login sends the person to its URL (``open_with``, else a browser)."""
    opener = _command_opener(cwd, open_with) if open_with else _browser_opener()
    with people_present(Interaction(open_url=opener)):
        yield


@contextmanager
def maybe_reaching_person(cwd: Path, open_with: str | None) -> Iterator[None]:
    """:func:`reaching_person` when ``open_with`` is given; else nobody is sent anywhere (a login is named, not run)."""
    if open_with is None:
        yield
        return
    with reaching_person(cwd, open_with):
        yield


def _command_opener(cwd: Path, open_with: str) -> Opener:
    words = shlex.split(open_with)
    if not words:
        raise UserError("--open-with needs a command")
    unsafe = (project_root(cwd),)
    found = (
        given_program(Path(words[0]), unsafe_dirs=unsafe)
        if os.sep in words[0]
        else trusted_program(words[0], unsafe_dirs=unsafe)
    )
    if found.path is None:
        raise UserError(f"--open-with: no program {words[0]!r} found")
    notice = found.notice()
    if notice:
        echo(f"hive: {notice}", err=True)
    argv = [found.path, *words[1:]]

    async def open_url(url: str, give_up: GiveUp) -> None:
        try:
            process = await asyncio.to_thread(subprocess.Popen, [*argv, url], stdin=subprocess.DEVNULL, cwd=cwd)
        except OSError as error:
            raise LoginFailed(f"cannot run the --open-with command: {error.strerror}") from None
        loop = asyncio.get_running_loop()
        threading.Thread(target=_watch, args=(process, loop, give_up), daemon=True).start()

    return open_url


def _watch(process: subprocess.Popen[bytes], loop: asyncio.AbstractEventLoop, give_up: GiveUp) -> None:
    """Tell the login to stop waiting when the command fails (it may outlive the login: a browser)."""
    status = process.wait()
    if status != 0:
        with contextlib.suppress(RuntimeError):  # the login is over and its loop closed
            loop.call_soon_threadsafe(give_up, f"the --open-with command exited with status {status}")


def _browser_opener() -> Opener:
    async def open_url(url: str, give_up: GiveUp) -> None:
        echo(f"hive: to log in, open this address in a browser:\n  {url}", err=True)
        if _has_display():
            import webbrowser

            await asyncio.to_thread(webbrowser.open, url)

    return open_url


def _has_display() -> bool:
    return sys.platform in ("darwin", "win32") or bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
