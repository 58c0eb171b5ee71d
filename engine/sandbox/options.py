"""What the user chooses about the sandbox (the config loader builds it from settings and ``--sandbox``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

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


class SandboxSettings(BaseModel):
    """The ``sandbox`` section of a settings file: a mode alone (``sandbox: off``) or a mapping."""

    model_config = ConfigDict(extra="forbid", frozen=True)
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
