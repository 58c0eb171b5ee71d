"""What the user chooses about the sandbox (the config loader builds it from settings and ``--sandbox``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

SandboxMode = Literal["workspace-write", "read-only", "off"]


@dataclass(frozen=True, kw_only=True)
class SandboxOptions:
    """How shell commands are confined.

    ``mode``: ``workspace-write`` (the project and ``writable_roots`` writable), ``read-only``
    (nothing on disk writable but a private temporary folder) or ``off`` (no sandbox).
    ``network``: whether commands may use the network. ``writable_roots``: more folders that
    commands may write to in ``workspace-write`` mode.
    """

    mode: SandboxMode = "workspace-write"
    network: bool = False
    writable_roots: tuple[Path, ...] = ()
