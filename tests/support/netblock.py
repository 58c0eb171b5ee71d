"""Block every network connection except loopback and Unix sockets, so no test can reach the internet.

`install()` wraps `socket.socket.connect` / `connect_ex`, `socket.create_connection` and `socket.getaddrinfo`:
for a host that is not loopback (localhost, 127.0.0.0/8, ::1, their IPv4-mapped forms, 0.0.0.0 / ::) they
raise `NetworkBlockedError` (an `OSError`) with "network blocked by hive tests: <host:port>" before any packet
or DNS query leaves. Unix sockets and non-IP families pass. `uninstall()` restores the originals.

A subprocess started with `PYTHONPATH=tests/support/sitecustomize_netblock` is blocked from its first line
(the `sitecustomize` module there calls `install()`); so are its children, which inherit the variable.

The ddgs search library (DuckDuckGo) connects through its own HTTP client, outside Python's socket module:
`install()` also points its `DDGS_PROXY` at a loopback port that is bound and never listens, so its every
connection is refused on this machine, in this process and in the children that inherit the variable.
"""

from __future__ import annotations

import atexit
import ipaddress
import os
import socket
from collections.abc import Callable
from typing import Any

_LOCAL_NAMES = frozenset({"", "localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_INET_FAMILIES = (socket.AF_INET, socket.AF_INET6)
_MARK = "_hive_netblock_original"
_originals: dict[str, Callable[..., Any]] = {}
_DDGS_PROXY = "DDGS_PROXY"
_dead_ends: list[socket.socket] = []


class NetworkBlockedError(OSError):
    """A connection or lookup to a non-loopback host, refused by the test network block."""


def is_loopback_host(host: str | bytes | None) -> bool:
    """True for loopback names and addresses (and None / "" / unspecified addresses, which stay on this machine)."""
    if host is None:
        return True
    name = (host.decode("ascii", "replace") if isinstance(host, bytes) else str(host)).strip("[]")
    name = name.split("%", 1)[0].rstrip(".").lower()
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def install() -> None:
    """Start blocking non-loopback connections in this process (idempotent)."""
    if hasattr(socket.socket.connect, _MARK):
        return
    if _DDGS_PROXY not in os.environ:
        os.environ[_DDGS_PROXY] = _dead_end()
    _originals.update(
        connect=socket.socket.connect,
        connect_ex=socket.socket.connect_ex,
        create_connection=socket.create_connection,
        getaddrinfo=socket.getaddrinfo,
    )
    socket.socket.connect = _wrap(_originals["connect"], _check_socket_address)  # type: ignore[method-assign]
    socket.socket.connect_ex = _wrap(_originals["connect_ex"], _check_socket_address)  # type: ignore[method-assign]
    socket.create_connection = _wrap(_originals["create_connection"], _check_first_address)
    socket.getaddrinfo = _wrap(_originals["getaddrinfo"], _check_lookup)


def _dead_end() -> str:
    """A loopback address that refuses every connection: a port held bound, never listening, while the process lives."""
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    holder.bind(("127.0.0.1", 0))
    _dead_ends.append(holder)
    atexit.register(holder.close)
    return f"http://127.0.0.1:{holder.getsockname()[1]}"


def uninstall() -> None:
    """Restore the original socket functions."""
    if not _originals:
        return
    socket.socket.connect = _originals.pop("connect")  # type: ignore[method-assign]
    socket.socket.connect_ex = _originals.pop("connect_ex")  # type: ignore[method-assign]
    socket.create_connection = _originals.pop("create_connection")
    socket.getaddrinfo = _originals.pop("getaddrinfo")


def is_installed() -> bool:
    """True while the block is active in this process."""
    return hasattr(socket.socket.connect, _MARK)


def _wrap(original: Callable[..., Any], check: Callable[..., None]) -> Callable[..., Any]:
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check(*args, **kwargs)
        return original(*args, **kwargs)

    guarded.__name__ = getattr(original, "__name__", "guarded")
    guarded.__doc__ = original.__doc__
    setattr(guarded, _MARK, original)
    return guarded


def _check_socket_address(sock: socket.socket, address: Any, *_: Any, **__: Any) -> None:
    if sock.family in _INET_FAMILIES and isinstance(address, tuple) and not is_loopback_host(address[0]):
        _refuse(address[0], address[1] if len(address) > 1 else None)


def _check_first_address(address: tuple[Any, ...], *_: Any, **__: Any) -> None:
    if not is_loopback_host(address[0]):
        _refuse(address[0], address[1] if len(address) > 1 else None)


def _check_lookup(host: str | bytes | None, port: Any = None, *_: Any, **__: Any) -> None:
    if not is_loopback_host(host):
        _refuse(host, port)


def _refuse(host: Any, port: Any) -> None:
    target = host.decode("ascii", "replace") if isinstance(host, bytes) else str(host)
    if port is not None:
        target = f"[{target}]:{port}" if ":" in target else f"{target}:{port}"
    raise NetworkBlockedError(f"network blocked by hive tests: {target}")
