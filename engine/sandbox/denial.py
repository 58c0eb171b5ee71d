"""Recognising a failed command that the sandbox probably blocked, from what it printed."""

from __future__ import annotations

import re
from typing import Literal

from engine.sandbox.options import SandboxMode

DenialKind = Literal["filesystem", "network"]

_FILESYSTEM = re.compile(
    r"read-only file system|\bEROFS\b|permission denied|\bEACCES\b|operation not permitted|\bEPERM\b", re.I
)
_NETWORK = re.compile(
    r"network is unreachable|\bENETUNREACH\b|temporary failure in name resolution|could not resolve|"
    r"name or service not known|no address associated with hostname|nodename nor servname|\bEAI_AGAIN\b|"
    r"getaddrinfo|connection refused|\bECONNREFUSED\b|failed to establish a new connection",
    re.I,
)


def sandbox_denials(output: str) -> tuple[DenialKind, ...]:
    """The kinds of sandbox refusal ``output`` shows signs of (none, one or both), for a command that failed."""
    found: list[DenialKind] = []
    if _FILESYSTEM.search(output):
        found.append("filesystem")
    if _NETWORK.search(output):
        found.append("network")
    return tuple(found)


def denial_note(kinds: tuple[DenialKind, ...], mode: SandboxMode) -> str:
    """One line for the result saying what the sandbox refuses; empty when ``kinds`` is."""
    if not kinds:
        return ""
    writes = (
        "it refuses writes outside the project and /tmp"
        if mode == "workspace-write"
        else "it refuses every write outside /tmp"
    )
    parts = {"filesystem": writes, "network": "the network is off inside it"}
    return f"[The sandbox may have blocked this: {' and '.join(parts[kind] for kind in kinds)}.]"
