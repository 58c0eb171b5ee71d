"""Ctrl-C, SIGTERM and SIGHUP noted while a batch waits on its workers, and acted on between waits.

A signal handler that raises inside a blocking call of a C extension (Ray's ``ray.wait``) can lose the
exception or turn it into another one. So the handlers here only note the first signal; the waiting loop
asks ``raise_if_received`` between its short waits and stops there, in plain Python.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from hive_cli.interrupts import exit_status

STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class StopSignals:
    """Remembers the first stopping signal that came while ``caught()`` is active."""

    def __init__(self) -> None:
        self.received: signal.Signals | None = None

    @contextmanager
    def caught(self) -> Iterator[None]:
        """For the block's duration, the stopping signals are noted instead of acted on (main thread only)."""
        if threading.current_thread() is not threading.main_thread():
            yield  # only the main thread may set handlers; the caller's own handling stands
            return
        previous = {received: signal.signal(received, self._note) for received in STOPPING_SIGNALS}
        try:
            yield
        finally:
            for received, handler in previous.items():
                signal.signal(received, handler)

    def raise_if_received(self) -> None:
        """Raise what the signal means: KeyboardInterrupt for Ctrl-C, SystemExit(128 + n) for an ending signal."""
        if self.received is signal.SIGINT:
            raise KeyboardInterrupt
        if self.received is not None:
            raise SystemExit(exit_status(self.received))

    def _note(self, received: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signal.Signals(received)
