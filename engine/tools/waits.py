"""The time a tool call spends waiting for a person's decision, kept apart from the time it runs."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager


class DecisionWaits:
    """How long one call waited for a person (an approval question, another call's question).

    A call made from inside another call has its own record, ``nested()``: its waits count for the
    calls around it too, so no call's run time includes a person's thinking time.
    """

    def __init__(self, parent: DecisionWaits | None = None) -> None:
        self.waited_s = 0.0
        self._parent = parent

    def nested(self) -> DecisionWaits:
        """A record for a call made inside this one."""
        return DecisionWaits(self)

    @contextmanager
    def waiting(self) -> Iterator[None]:
        """Count the time spent in the block as waiting (even when the block is cancelled)."""
        started = time.monotonic()
        try:
            yield
        finally:
            self._add(time.monotonic() - started)

    def _add(self, seconds: float) -> None:
        record: DecisionWaits | None = self
        while record is not None:
            record.waited_s += seconds
            record = record._parent
