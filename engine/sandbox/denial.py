"""Recognising a failed command that the sandbox probably blocked, from what it printed."""

from __future__ import annotations

import re
from typing import Literal

from engine.sandbox.options import SandboxMode

DenialKind = Literal["filesystem", "network", "unix_socket"]

_WRITE_REFUSED = re.compile(r"read-only file system|\bEROFS\b|permission denied|\bEACCES\b", re.I)
_NOT_PERMITTED = re.compile(r"operation not permitted|\bEPERM\b", re.I)
_NETWORK = re.compile(
    r"network is unreachable|\bENETUNREACH\b|temporary failure in name resolution|could not resolve|"
    r"name or service not known|no address associated with hostname|nodename nor servname|\bEAI_AGAIN\b|"
    r"getaddrinfo|connection refused|\bECONNREFUSED\b|failed to establish a new connection",
    re.I,
)
_SOCKET_CALL = re.compile(r"socket|connect|listen|\bbind\b|\bunix\b|\.sock\b|forkserver|\bagent\b", re.I)
_SOCKET_CONTEXT = 6
"""How many lines before an EPERM may show the socket call it came from (a Python traceback's frames)."""


def sandbox_denials(output: str) -> tuple[DenialKind, ...]:
    """The kinds of sandbox refusal ``output`` shows signs of (none, one or more), for a command that failed.

    An EPERM right after a socket call (on its line or in the few lines before it) is the seccomp
    filter refusing a unix socket; any other EPERM, like EACCES and EROFS, is a refused write.
    """
    lines = output.splitlines()
    refused = [index for index, line in enumerate(lines) if _NOT_PERMITTED.search(line)]
    socket_refused = [index for index in refused if _after_socket_call(lines, index)]
    found: list[DenialKind] = []
    if _WRITE_REFUSED.search(output) or len(socket_refused) < len(refused):
        found.append("filesystem")
    if _NETWORK.search(output):
        found.append("network")
    if socket_refused:
        found.append("unix_socket")
    return tuple(found)


def _after_socket_call(lines: list[str], index: int) -> bool:
    context = lines[max(0, index - _SOCKET_CONTEXT) : index + 1]
    return any(_SOCKET_CALL.search(line) for line in context)


def denial_note(kinds: tuple[DenialKind, ...], mode: SandboxMode) -> str:
    """One line for the result saying what the sandbox refuses; empty when ``kinds`` is."""
    if not kinds:
        return ""
    writes = (
        "it refuses writes outside the project and /tmp"
        if mode == "workspace-write"
        else "it refuses every write outside /tmp"
    )
    parts = {
        "filesystem": writes,
        "network": "the network is off inside it",
        "unix_socket": "it refuses unix sockets unless the user's own settings allow them with "
        "`sandbox.allow_unix_sockets` (socket paths, or `inside` for sockets made inside the sandbox)",
    }
    return f"[The sandbox may have blocked this: {' and '.join(parts[kind] for kind in kinds)}.]"
