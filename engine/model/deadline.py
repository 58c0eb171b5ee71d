"""One model call's overall deadline: ``request_timeout`` bounds the connect, the wait for the first byte
and the whole streamed body, so a server that trickles a byte now and then cannot hold a run.

HTTP clients' timeouts (httpx's, litellm's) bound each read, and a trickling server never lets one
expire. The deadline is an ``asyncio.timeout`` around the whole attempt, held still while the caller
handles a yielded item: an async generator's time at the consumer is not the server's time, and a
deadline firing there would cancel the consumer instead of the call.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager


class DeadlineExceeded(TimeoutError):
    """The call did not finish within ``request_timeout``."""

    def __init__(self, timeout_s: float) -> None:
        super().__init__(f"the reply did not finish within request_timeout {timeout_s:g}s (settings.yaml)")
        self.timeout_s = timeout_s


class UnfinishedEvent(ConnectionError):
    """The stream closed in the middle of an event: a cut stream, however cleanly the body ended."""

    def __init__(self, size: int) -> None:
        super().__init__(f"the stream closed inside an event ({size:,} bytes of it had arrived)")


class CallDeadline:
    """The running deadline of one call; ``paused()`` holds it still while the consumer has an item."""

    def __init__(self, scope: asyncio.Timeout) -> None:
        self._scope = scope

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Stop the clock for the time inside the block (a ``yield`` to the consumer)."""
        when = self._scope.when()
        clock = asyncio.get_running_loop()
        left = None if when is None else when - clock.time()
        self._scope.reschedule(None)
        try:
            yield
        finally:
            self._scope.reschedule(None if left is None else clock.time() + left)


@asynccontextmanager
async def call_deadline(timeout_s: float) -> AsyncIterator[CallDeadline]:
    """A deadline ``timeout_s`` from now for the block; ``DeadlineExceeded`` when it passes."""
    scope = asyncio.timeout(timeout_s)
    try:
        async with scope:
            yield CallDeadline(scope)
    except TimeoutError as exc:
        if scope.expired():
            raise DeadlineExceeded(timeout_s) from exc
        raise
