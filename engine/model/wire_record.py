"""What actually came over the wire for one model call: URL, status, content type, first bytes, the end.

litellm turns an HTML page, an empty body or a stream that stops short into an empty or truncated
reply without a word, and fills usage fields the server never sent with zeros. For OpenAI-compatible
endpoints hive hands litellm an HTTP client whose transport records the response as it passes
through (``WireTap``), so the client can tell a finished reply from a broken one and quote what came
back. The record for the call in progress is found through a context variable, so one pooled client
serves every call.
"""

from __future__ import annotations

import json
import re
from contextvars import ContextVar
from typing import Any

from msgspec import Struct

from engine.records import hiding

HEAD_BYTES = 200
"""How much of the body is kept to quote back when the response is not what was asked for."""
_DONE = b"data: [DONE]"
_USAGE = re.compile(rb'"usage"\s*:\s*\{')
_FINISH = re.compile(rb'"finish_reason"\s*:\s*"')


class WireRecord(Struct):
    """One model call's response as the server sent it."""

    url: str = ""
    status: int | None = None
    content_type: str = ""
    head: bytes = b""
    """The first ``HEAD_BYTES`` bytes of the body."""
    received: int = 0
    """Bytes of body received."""
    events: int = 0
    """``data:`` events received, ``[DONE]`` not counted."""
    done: bool = False
    """The stream's ``data: [DONE]`` line arrived."""
    finish_sent: bool = False
    """Some event carried a finish reason (litellm makes one up when none came)."""
    usage: dict[str, Any] | None = None
    """The last usage object the server sent in a stream, exactly as sent."""
    _partial_line: bytes = b""

    __repr__, __rich_repr__ = hiding("_partial_line")

    @property
    def is_event_stream(self) -> bool:
        """The server answered with server-sent events."""
        return self.content_type.startswith("text/event-stream")

    def take(self, chunk: bytes) -> None:
        """Record one piece of the body."""
        if len(self.head) < HEAD_BYTES:
            self.head += chunk[: HEAD_BYTES - len(self.head)]
        self.received += len(chunk)
        lines = (self._partial_line + chunk).split(b"\n")
        self._partial_line = lines.pop()
        for line in lines:
            self._take_line(line.strip())

    def finish(self) -> None:
        """The body ended: read its last line if it had no newline."""
        if self._partial_line:
            self._take_line(self._partial_line.strip())
            self._partial_line = b""

    def _take_line(self, line: bytes) -> None:
        if line.startswith(_DONE):
            self.done = True
            return
        if not line.startswith(b"data:"):
            return
        self.events += 1
        if _FINISH.search(line):
            self.finish_sent = True
        if _USAGE.search(line):
            self._take_usage(line[5:])

    def _take_usage(self, data: bytes) -> None:
        try:
            event = json.loads(data)
        except ValueError:
            return
        usage = event.get("usage") if isinstance(event, dict) else None
        if isinstance(usage, dict):
            self.usage = usage

    def describe(self) -> str:
        """What came back, for a person: status, content type, first bytes and the URL."""
        parts = [f"HTTP {self.status}" if self.status is not None else "no response"]
        parts.append(f"content type {self.content_type or 'not given'}")
        if self.received == 0:
            parts.append("an empty body")
        else:
            parts.append(f"{self.received:,} bytes starting {_quote(self.head)}")
        return ", ".join(parts) + (f" from {self.url}" if self.url else "")


def _quote(head: bytes) -> str:
    text = head.decode("utf-8", errors="replace")
    text = " ".join(text.split())
    return repr(text[:120] + ("…" if len(text) > 120 else ""))


current_record: ContextVar[WireRecord | None] = ContextVar("hive_wire_record", default=None)
"""The record the next request on a tapped client fills (set around one call by the model client)."""
