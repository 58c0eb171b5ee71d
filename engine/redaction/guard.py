"""The result guard that keeps secrets from the model: every tool result passes it, always.

The values of the secret variables are taken from hive's environment when the guard is made (as a
session starts); the rules (detect-secrets' plugins and hive's) load at the first result.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Mapping

from msgspec import Struct

from engine.events import ToolCall
from engine.policy.guards import Allow, GuardVerdict, Replace
from engine.records import hiding
from engine.redaction.values import secret_values
from engine.tools.base import ToolResult

OFF_LOOP_CHARS = 256 * 1024
"""A result longer than this is scanned in a worker thread (some 20 ms of work or more), not on the event loop."""


class SecretRedactionGuard(Struct, frozen=True, kw_only=True):
    """Replaces credentials and the values of secret variables in a result with ``[redacted: KIND]``."""

    values: tuple[tuple[str, str], ...] = ()
    """``(kind, value)`` of the exact values to replace (the secret variables' and hive's API key)."""
    name: str = "secret redaction"

    __repr__, __rich_repr__ = hiding("values")

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, known: Iterable[tuple[str, str | None]] = ()
    ) -> SecretRedactionGuard:
        """The guard for the secret variables of ``environ`` (hive's own by default) and the ``known`` values."""
        return cls(values=secret_values(os.environ if environ is None else environ, known))

    async def check(self, call: ToolCall, result: ToolResult) -> GuardVerdict:
        """Allow a result with no secret; replace the secrets of the others."""
        from engine.redaction.scan import redactor_for  # the rules load at the first result, not at the start

        redactor = redactor_for(self.values)
        if len(result.output) > OFF_LOOP_CHARS:
            redacted = await asyncio.to_thread(redactor.redact, result.output)
        else:
            redacted = redactor.redact(result.output)
        return Allow() if redacted is result.output else Replace(redacted)
