"""hive's own retries, shared by every model client: a failure before any output may be tried again."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing

from engine.errors import ProviderError
from engine.model.assembly import StreamAssembler
from engine.model.failures import RetryPolicy
from engine.model.types import StreamItem, StreamRetry

Attempt = Callable[[StreamAssembler], AsyncGenerator[StreamItem, None]]
"""One try at a call: streams into a fresh assembler, raises ``ProviderError`` on failure."""


async def with_retries(attempt: Attempt, policy: RetryPolicy) -> AsyncGenerator[StreamItem, None]:
    """Run ``attempt`` until it succeeds or ``policy`` gives up, announcing each wait as ``StreamRetry``."""
    number = 1
    while True:
        try:
            async with aclosing(attempt(StreamAssembler(model=""))) as items:
                async for item in items:
                    yield item
            return
        except ProviderError as error:
            delay = policy.delay_for(error, number)
            if delay is None:
                raise
            yield StreamRetry(category=error.category, message=str(error), attempt=number, delay_s=delay)
            await asyncio.sleep(delay)
            number += 1
