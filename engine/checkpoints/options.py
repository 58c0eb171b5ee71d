"""The ``checkpoints`` section of the settings."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CheckpointOptions(BaseModel):
    """Snapshots of the files a tool call may change, kept for undo."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)
    enabled: bool = True
    max_file_bytes: int = Field(default=10_000_000, gt=0)
    """Files larger than this are not snapshotted (undo then refuses for them)."""
    keep_days: int = Field(default=30, gt=0)
    """Checkpoints older than this are removed."""
