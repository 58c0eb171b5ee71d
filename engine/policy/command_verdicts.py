"""The built-in verdicts of the command tables: what a command may do, given whether the sandbox contains it.

A command the tables know is allowed when it only reads or only changes files inside the project;
when it runs the project's own code or writes files taken from other commits, only if the sandbox
is on; an option or subcommand that runs other programs, changes configuration or reaches outside
asks. :class:`TableJudge` is the ``judge`` of the built-in ``bash`` rules (see :mod:`engine.policy.rules`).
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from engine.policy.patterns import CommandWord
from engine.policy.rules import Action

SANDBOX_OFF = "; the sandbox is off, so it is asked"
_SANDBOXED_ONLY = frozenset({"imports", "project_code"})


class TableJudge(Struct, frozen=True):
    """Judges commands by hive's command tables, for a policy whose commands do (or do not) run sandboxed."""

    sandboxed: bool = True

    def __call__(self, words: Sequence[CommandWord]) -> tuple[Action, str] | None:
        """``(action, reason)`` for a command a table knows; None when the tables give it no verdict."""
        from engine.policy.command_args import parse_command  # the tables' parser, needed once a command is judged

        parsed = parse_command(tuple(words))
        if parsed is None:
            return None
        if parsed.asks:
            return "ask", parsed.asks[0]
        if parsed.cls is None:
            return None
        reason = f"{parsed.name}: {parsed.reason}"
        if parsed.cls == "ask":
            return "ask", reason
        if parsed.cls in _SANDBOXED_ONLY and not self.sandboxed:
            return "ask", reason + SANDBOX_OFF
        return "allow", reason
