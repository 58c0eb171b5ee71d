"""Whether a person can be sent to a browser now, and how: the one switch between a login and "needs login".

A command that may log in (``hive mcp login``, or ``hive mcp call``/``tools`` given ``--open-with``)
runs its connections inside :func:`people_present`; everywhere else (``hive run``, the REPL's
background connections, ``hive mcp list``) no browser is ever opened: a server that wants a login
fails with :class:`LoginNeeded`, which names the command to run. A context variable carries it, so the
SDK's HTTP tasks (which run in the context of the request that started them) see the caller's choice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from urllib.parse import urlsplit

from msgspec import Struct

GiveUp = Callable[[str], None]
"""Called with the reason when the browser (or the ``--open-with`` command) failed: the login stops waiting."""


class Interaction(Struct, frozen=True):
    """How to send a person to an authorization URL."""

    open_url: Callable[[str, GiveUp], Awaitable[None]]
    """Open the URL (a browser, a command, or print it); return once it is on its way."""


class LoginNeeded(Exception):
    """A server wants a login and nobody can be asked here; ``str()`` names the command that logs in."""


_auth_problems: dict[str, str] = {}
"""Server name -> why its latest authorization stopped, until an error message takes it (see :func:`take_auth_problem`)."""

_present: ContextVar[Interaction | None] = ContextVar("hive_mcp_login_interaction", default=None)


@contextmanager
def people_present(interaction: Interaction) -> Iterator[None]:
    """Within this block (and the tasks it starts), a server that wants a login sends the person to log in."""
    token = _present.set(interaction)
    try:
        yield
    finally:
        _present.reset(token)


def current_interaction() -> Interaction | None:
    """How to reach the person now, or None when nobody can be asked."""
    return _present.get()


LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "::1"})


def authorization_url_problem(url: str) -> str | None:
    """Why an authorization URL (from the server's metadata) must not be opened: only https, or http on this
    machine, goes to a browser or an ``--open-with`` command (the spec's rule); None when it may."""
    parts = urlsplit(url)
    if parts.hostname and (parts.scheme == "https" or (parts.scheme == "http" and parts.hostname in LOOPBACK_HOSTS)):
        return None
    return f"the authorization server's address is not https (nor http on this machine), so it was not opened: {url!r}"


def needs_login(name: str, step_up_scope: str | None = None) -> str:
    """What to tell a person whose server ``name`` needs a login (``step_up_scope``: what a 403 asked for)."""
    if step_up_scope:
        return (
            f"the server answered 403 Forbidden (insufficient_scope): it needs login: run `hive mcp login {name}` "
            f"(the server asks for the scope {step_up_scope!r})"
        )
    return f"the server answered 401 Unauthorized: it needs login: run `hive mcp login {name}`"


def note_auth_problem(server: str, error: BaseException) -> None:
    """Remember why ``server``'s authorization stopped: the SDK's HTTP task dies with it, and the
    connection reports only that it closed."""
    _auth_problems[server] = describe_auth_failure(error)


def take_auth_problem(server: str) -> str | None:
    """Why ``server``'s latest authorization stopped (then forgotten), or None."""
    return _auth_problems.pop(server, None)


def describe_auth_failure(error: BaseException) -> str:
    """One line for an authorization that stopped: a login is needed, the login failed, or the flow failed."""
    from engine.mcp.oauth.loopback import LoginFailed

    said = str(error).splitlines()[0] if str(error) else type(error).__name__
    if isinstance(error, LoginNeeded):
        return said
    if isinstance(error, LoginFailed):
        return f"the login failed: {said}"
    return f"the authorization failed: {said}"
