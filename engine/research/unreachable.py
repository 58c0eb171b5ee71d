"""Telling "the network could not be reached" apart from other failures, and saying it in plain words.

A search or a fetch that fails because the name did not resolve, the connection was refused or there
is no route means hive is offline (or the address is wrong); research then suggests the local
documents provider instead. The reason is read from the exception chain (httpx wraps the socket's
``OSError``; the ddgs library wraps its HTTP client's errors, whose class names say what failed) and
said without any exception's repr.
"""

from __future__ import annotations

import errno
import socket

NAME_NOT_RESOLVED = "the host name could not be resolved"
REFUSED = "the connection was refused"
NO_ROUTE = "there is no route to the network"
NOT_CONNECTED = "no connection could be made"

_NO_ROUTE_ERRNOS = frozenset({errno.ENETUNREACH, errno.EHOSTUNREACH, errno.ENETDOWN, errno.EHOSTDOWN})
_BY_CLASS_NAME = {"DNSError": NAME_NOT_RESOLVED, "ConnectError": NOT_CONNECTED}
"""Connection errors of the HTTP clients (httpx's, and those inside the ddgs library), known by their class name."""
_BY_TEXT = (
    ("error resolving dns", NAME_NOT_RESOLVED),
    ("name resolution", NAME_NOT_RESOLVED),
    ("name or service not known", NAME_NOT_RESOLVED),
    ("connection refused", REFUSED),
    ("no route to host", NO_ROUTE),
    ("network is unreachable", NO_ROUTE),
)
_DEPTH = 12


def network_failure(exc: BaseException) -> str | None:
    """Why ``exc`` means the network could not be reached, in plain words; None when it failed for another reason."""
    chain = _chain(exc)
    for error in chain:
        reason = _socket_reason(error)
        if reason is not None:
            return reason
    for error in chain:
        named = _BY_CLASS_NAME.get(type(error).__name__)
        if named is not None:
            return next((said for text, said in _BY_TEXT if text in str(error).lower()), named)
    return None


def _socket_reason(error: BaseException) -> str | None:
    if isinstance(error, socket.gaierror):
        return NAME_NOT_RESOLVED
    if isinstance(error, ConnectionRefusedError):
        return REFUSED
    if isinstance(error, OSError) and error.errno in _NO_ROUTE_ERRNOS:
        return NO_ROUTE
    return None


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and what it wraps: its cause, its context and exceptions given as its arguments, breadth first."""
    seen: list[BaseException] = []
    waiting = [exc]
    while waiting and len(seen) < _DEPTH:
        error = waiting.pop(0)
        if any(error is known for known in seen):
            continue
        seen.append(error)
        waiting += [e for e in (error.__cause__, error.__context__) if e is not None]
        waiting += [arg for arg in error.args if isinstance(arg, BaseException)]
    return seen
