"""What hive answered a server's elicitation request without the person, said on stderr (``hive run``, ``hive mcp call``).

The engine reports each request it declined or cancelled by itself on the ``hive.mcp.elicitation``
logger (:mod:`engine.mcp.elicitation`); here each report becomes one ``hive:`` line on stderr, its
text shown with every control character visible (the server's message is untrusted).
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import get_args

from msgspec.structs import replace

from engine.config.loader import SessionConfig
from engine.mcp.config import McpServers
from engine.mcp.elicitation import NOTES
from engine.mcp.elicitation_question import ElicitationMode
from hive_cli.terminal_text import echo

ELICITATION_MODES: tuple[str, ...] = get_args(ElicitationMode)


class _StderrNotes(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        echo(f"hive: {record.getMessage()}", err=True)


@contextmanager
def notes_on_stderr() -> Iterator[None]:
    """Meanwhile, every elicitation request hive answered by itself is one line on stderr."""
    handler = _StderrNotes(logging.INFO)
    level = NOTES.level
    NOTES.addHandler(handler)
    NOTES.setLevel(logging.INFO)
    try:
        yield
    finally:
        NOTES.removeHandler(handler)
        NOTES.setLevel(level)


def with_elicitation(servers: McpServers, mode: ElicitationMode) -> McpServers:
    """The servers, their elicitation requests answered by ``mode``."""
    return replace(servers, elicitation=mode)


def session_with_elicitation(config: SessionConfig, mode: ElicitationMode) -> SessionConfig:
    """The session's configuration, its servers' elicitation requests answered by ``mode``."""
    return replace(config, mcp_servers=with_elicitation(config.mcp_servers, mode))
