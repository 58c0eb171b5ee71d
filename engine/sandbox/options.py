"""What the user chooses about the sandbox (the config loader builds it from settings and ``--sandbox``)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any, Literal

from msgspec import Meta, Struct

from engine.config.validation import StrictRecord

SandboxMode = Literal["workspace-write", "read-only", "off"]
_LOOSENESS: dict[SandboxMode, int] = {"read-only": 0, "workspace-write": 1, "off": 2}
INSIDE = "inside"
"""The ``sandbox.allow_unix_sockets`` entry for unix sockets made and used inside the sandbox."""


class SandboxOptions(Struct, frozen=True, kw_only=True):
    """How shell commands are confined.

    ``mode``: ``workspace-write`` (the project and ``writable_roots`` writable), ``read-only``
    (nothing on disk writable but a private temporary folder) or ``off`` (no sandbox).
    ``network``: whether commands may use the network. ``writable_roots``: more folders that
    commands may write to in ``workspace-write`` mode. ``read_paths``: more paths shown read-only
    in the hidden home (see :mod:`engine.sandbox.toolchains`). ``env``: more environment variables
    passed to commands as they are (see :mod:`engine.sandbox.environment`). ``unix_sockets``: the
    socket files commands may reach, and ``unix_sockets_inside``: whether they may make their own;
    either lifts the seccomp rule against ``socket(AF_UNIX)`` (see :mod:`engine.sandbox.seccomp`).
    ``project``: the project root the options were made for (None: the project of each command's
    folder), where hive never looks for a program.
    """

    mode: SandboxMode = "workspace-write"
    network: bool = False
    writable_roots: tuple[Path, ...] = ()
    read_paths: tuple[Path, ...] = ()
    env: tuple[str, ...] = ()
    unix_sockets: tuple[Path, ...] = ()
    unix_sockets_inside: bool = False
    project: Path | None = None

    @property
    def allows_unix_sockets(self) -> bool:
        """Whether commands may open unix sockets (``sandbox.allow_unix_sockets`` is set)."""
        return bool(self.unix_sockets) or self.unix_sockets_inside


VariableName = Annotated[str, Meta(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")]


class SandboxSettings(StrictRecord, frozen=True):
    """The ``sandbox`` section of a settings file: a mode alone (``sandbox: off``) or a mapping.

    ``mode`` and ``network`` are None when the file leaves them out, so the project's file can be
    told apart from the defaults it did not set (see :func:`layered_options`).
    """

    mode: SandboxMode | None = None
    """``workspace-write`` when no file sets it."""
    network: bool | None = None
    """Let commands use the network (off when no file sets it)."""
    writable_roots: tuple[str, ...] = ()
    """More folders commands may write to; relative ones are taken from the project root."""
    read_paths: tuple[str, ...] = ()
    """More paths commands may read in the hidden home (``~/bin``); only the user's settings may set them."""
    env: tuple[VariableName, ...] = ()
    """More environment variables commands get, as they are; only the user's settings may set them."""
    allow_unix_sockets: tuple[str, ...] = ()
    """Unix socket files commands may connect to (absolute, or under ``~``), and ``inside`` for sockets
    commands make themselves; the user's settings only. Setting it lets every command open unix sockets."""

    def __post_init__(self) -> None:
        for entry in self.allow_unix_sockets:
            if entry != INSIDE and not Path(entry).expanduser().is_absolute():
                raise ValueError(
                    f"allow_unix_sockets: {entry!r} should be the absolute path of a socket file (or start with ~), "
                    f"or {INSIDE!r}"
                )

    def options(self, project_root: Path, mode: SandboxMode | None = None) -> SandboxOptions:
        """The options these settings give (``mode`` from ``--sandbox`` wins), with the roots resolved."""
        roots = tuple((project_root / Path(raw).expanduser()).resolve() for raw in self.writable_roots)
        return SandboxOptions(
            mode=mode or self.mode or "workspace-write",
            network=bool(self.network),
            writable_roots=roots,
            read_paths=self.shown_paths(project_root),
            env=self.env,
            unix_sockets=self.socket_paths(),
            unix_sockets_inside=INSIDE in self.allow_unix_sockets,
        )

    def shown_paths(self, project_root: Path) -> tuple[Path, ...]:
        """``read_paths`` made absolute (``~`` expanded), links not resolved: they are shown where the home has them."""
        return tuple(Path(os.path.normpath(project_root / Path(raw).expanduser())) for raw in self.read_paths)

    def socket_paths(self) -> tuple[Path, ...]:
        """The socket files of ``allow_unix_sockets``, with ``~`` expanded."""
        paths = (Path(entry).expanduser() for entry in self.allow_unix_sockets if entry != INSIDE)
        return tuple(dict.fromkeys(paths))


def sandbox_section(value: Any) -> Any:
    """The ``sandbox`` section as a mapping: YAML reads a bare ``off`` as false, so ``sandbox: off``,
    ``sandbox: false`` and ``mode: off`` all mean the mode off, and ``sandbox: read-only`` the mode alone."""
    if isinstance(value, bool):
        return {} if value else {"mode": "off"}
    if isinstance(value, str):
        return {"mode": value}
    if isinstance(value, dict) and value.get("mode") is False:
        return {**value, "mode": "off"}
    return value


def layered_options(
    user: SandboxSettings, project: SandboxSettings, project_root: Path, mode: SandboxMode | None = None
) -> tuple[SandboxOptions, tuple[str, ...]]:
    """The user's sandbox as the project's settings tighten it, and what the project asked for in vain.

    The sandbox is the wall around what a repository's own files and text can get done, so those files
    cannot lower it: a looser mode, the network, a writable folder outside the project, unix sockets,
    more paths to read in the hidden home or more environment variables come only from the user's
    settings (or ``--sandbox``, ``mode``, which wins as it always has).
    """
    refused: list[str] = []
    chosen: SandboxMode = user.mode or "workspace-write"
    if project.mode is not None:
        if _LOOSENESS[project.mode] <= _LOOSENESS[chosen]:
            chosen = project.mode
        else:
            refused.append(f"mode {project.mode}")
    network = bool(user.network)
    if project.network is not None:
        if project.network and not network:
            refused.append("network: true")
        else:
            network = project.network
    roots = list(user.options(project_root).writable_roots)
    for raw, root in zip(project.writable_roots, project.options(project_root).writable_roots, strict=True):
        if root.is_relative_to(project_root.resolve()):
            roots.append(root)
        elif root not in roots:
            refused.append(f"writable root {raw}")
    shown = user.shown_paths(project_root)
    refused += [
        f"read path {raw}"
        for raw, path in zip(project.read_paths, project.shown_paths(project_root), strict=True)
        if path not in shown
    ]
    refused += [f"env {name}" for name in project.env if name not in user.env]
    if project.allow_unix_sockets:
        refused.append(f"allow_unix_sockets: {', '.join(project.allow_unix_sockets)}")
    options = SandboxOptions(
        mode=mode or chosen,
        network=network,
        writable_roots=tuple(dict.fromkeys(roots)),
        read_paths=shown,
        env=user.env,
        unix_sockets=user.socket_paths(),
        unix_sockets_inside=INSIDE in user.allow_unix_sockets,
        project=project_root.resolve(),
    )
    return options, tuple(refused)
