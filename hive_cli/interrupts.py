"""The signals that stop hive, and the exit status each one leaves with.

Ctrl-C (SIGINT) cancels the run in progress. SIGTERM, and SIGHUP when the terminal closes, cancel
it too, so that the running tools stop (a shell command's whole process group is killed), and then
end hive. The exit status is the shell's convention for a program ended by a signal, 128 plus the
signal's number: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
"""Signals that end hive (after the run in progress is cancelled)."""


def exit_status(received: signal.Signals) -> int:
    """The exit status of a program ended by ``received``."""
    return 128 + received.value


@contextmanager
def cancel_on_ctrl_c(loop: asyncio.AbstractEventLoop, cancel: Callable[[], None]) -> Iterator[None]:
    """For the block's duration, SIGINT calls ``cancel`` (the run's ``Session.cancel``)."""
    loop.add_signal_handler(signal.SIGINT, cancel)
    try:
        yield
    finally:
        loop.remove_signal_handler(signal.SIGINT)


class Ending:
    """Catches SIGTERM and SIGHUP, remembers the first that came, and hands it on once.

    On SIGHUP the terminal is gone: standard output and error that were the terminal are pointed at
    /dev/null, so that what is still said on the way out cannot fail.
    """

    def __init__(self) -> None:
        self.received: signal.Signals | None = None
        self._terminal_outputs = tuple(fd for fd in (1, 2) if _is_terminal(fd))

    @property
    def exit_status(self) -> int | None:
        """The status hive must exit with, or None when no ending signal came."""
        return exit_status(self.received) if self.received is not None else None

    @contextmanager
    def caught(self, loop: asyncio.AbstractEventLoop, then: Callable[[], None]) -> Iterator[None]:
        """For the block's duration, the first SIGTERM or SIGHUP is remembered and ``then`` called."""
        for received in ENDING_SIGNALS:
            loop.add_signal_handler(received, self._on_signal, received, then)
        try:
            yield
        finally:
            for received in ENDING_SIGNALS:
                loop.remove_signal_handler(received)

    def _on_signal(self, received: signal.Signals, then: Callable[[], None]) -> None:
        if received == signal.SIGHUP:
            self._leave_terminal()
        if self.received is None:
            self.received = received
            then()

    def _leave_terminal(self) -> None:
        with suppress(OSError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            for fd in self._terminal_outputs:
                os.dup2(devnull, fd)
            os.close(devnull)


def _is_terminal(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False
