"""What the user chooses about the sandbox (the config loader builds it from settings and ``--sandbox``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from msgspec import Struct
from pydantic import BaseModel, ConfigDict, model_validator

SandboxMode = Literal["workspace-write", "read-only", "off"]
_LOOSENESS: dict[SandboxMode, int] = {"read-only": 0, "workspace-write": 1, "off": 2}


class SandboxOptions(Struct, frozen=True, kw_only=True):
    """How shell commands are confined.

    ``mode``: ``workspace-write`` (the project and ``writable_roots`` writable), ``read-only``
    (nothing on disk writable but a private temporary folder) or ``off`` (no sandbox).
    ``network``: whether commands may use the network. ``writable_roots``: more folders that
    commands may write to in ``workspace-write`` mode.
    """

    mode: SandboxMode = "workspace-write"
    network: bool = False
    writable_roots: tuple[Path, ...] = ()


class SandboxSettings(BaseModel):
    """The ``sandbox`` section of a settings file: a mode alone (``sandbox: off``) or a mapping."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    mode: SandboxMode = "workspace-write"
    network: bool = False
    """Let commands use the network (off by default)."""
    writable_roots: list[str] = []  # pydantic copies it (default_factory=list costs a signature parse)
    """More folders commands may write to; relative ones are taken from the project root."""

    @model_validator(mode="before")
    @classmethod
    def _mode_alone(cls, value: Any) -> Any:
        # YAML reads a bare ``off`` as false: ``sandbox: off`` and ``mode: off`` mean the mode off.
        if isinstance(value, bool):
            return {} if value else {"mode": "off"}
        if isinstance(value, str):
            return {"mode": value}
        if isinstance(value, dict) and value.get("mode") is False:
            return {**value, "mode": "off"}
        return value

    def options(self, project_root: Path, mode: SandboxMode | None = None) -> SandboxOptions:
        """The options these settings give (``mode`` from ``--sandbox`` wins), with the roots resolved."""
        roots = tuple((project_root / Path(raw).expanduser()).resolve() for raw in self.writable_roots)
        return SandboxOptions(mode=mode or self.mode, network=self.network, writable_roots=roots)


def layered_options(
    user: SandboxSettings, project: SandboxSettings, project_root: Path, mode: SandboxMode | None = None
) -> tuple[SandboxOptions, tuple[str, ...]]:
    """The user's sandbox as the project's settings tighten it, and what the project asked for in vain.

    The sandbox is the wall around what a repository's own files and text can get done, so those files
    cannot lower it: a looser mode, the network, or a writable folder outside the project come only
    from the user's settings (or ``--sandbox``, ``mode``, which wins as it always has).
    """
    refused: list[str] = []
    chosen = user.mode
    if "mode" in project.model_fields_set:
        if _LOOSENESS[project.mode] <= _LOOSENESS[user.mode]:
            chosen = project.mode
        else:
            refused.append(f"mode {project.mode}")
    network = user.network
    if "network" in project.model_fields_set:
        if project.network and not user.network:
            refused.append("network: true")
        else:
            network = project.network
    roots = list(user.options(project_root).writable_roots)
    for raw, root in zip(project.writable_roots, project.options(project_root).writable_roots, strict=True):
        if root.is_relative_to(project_root.resolve()):
            roots.append(root)
        elif root not in roots:
            refused.append(f"writable root {raw}")
    options = SandboxOptions(mode=mode or chosen, network=network, writable_roots=tuple(dict.fromkeys(roots)))
    return options, tuple(refused)
