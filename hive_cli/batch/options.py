"""The batch's defaults for every task (``hive batch``'s options), as JSON that crosses process and Ray boundaries.

No credential is here: an API key reaches each task's ``hive run`` through the environment only.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec
from msgspec import Meta, Struct

from hive_cli.batch.tasks import TASK_ID, BatchTask

SandboxChoice = Literal["workspace-write", "read-only", "off"]


class BatchDefaults(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """What every task takes unless its own line says otherwise."""

    batch: Annotated[str, Meta(pattern=f"^{TASK_ID.pattern}$")] = "batch"
    """The batch's name: the middle of each task's branch, ``hive-batch/<batch>/<task id>``."""
    model: str | None = None
    api_base: str | None = None
    mode: Literal["plan", "work"] | None = None
    yes: bool = False
    sandbox: SandboxChoice | None = None
    max_turns: Annotated[int, Meta(ge=1)] | None = None
    max_cost_usd: Annotated[float, Meta(gt=0)] | None = None
    """The limit of each task (the whole batch's is ``--budget-usd``, kept by the host)."""
    task_timeout_s: Annotated[float, Meta(gt=0)] | None = None
    """Stop a task's ``hive run`` after this many seconds (SIGTERM, then SIGKILL); None: no limit."""

    def to_json(self) -> str:
        """The defaults as JSON text."""
        return msgspec.json.encode(self).decode()

    @staticmethod
    def from_json(text: str) -> BatchDefaults:
        """Defaults from :meth:`to_json`'s text."""
        return msgspec.json.decode(text, type=BatchDefaults)


def task_json(task: BatchTask) -> str:
    """A task as JSON text (what ``run_one`` takes)."""
    return msgspec.json.encode(task).decode()


def task_from_json(text: str) -> BatchTask:
    """A task from :func:`task_json`'s text."""
    return msgspec.json.decode(text, type=BatchTask)
