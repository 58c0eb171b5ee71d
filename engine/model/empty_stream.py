"""A streamed request answered with ``200`` and no event at all: asked once more, unstreamed, to read why.

llama.cpp's servers (llama-cpp-python's among them) answer a streamed request that overflows the window
with a ``200`` event stream that ends before its first event; the same request unstreamed gets the
``400`` that names the window. So an empty stream is asked again once without streaming, and what that
answer says wins: an overflow error is handled as the overflow it is (compaction, or fitting the fixed
part to the window it names), and a whole reply is used as it is. A whole reply to a request with tools
means the server cannot stream such requests (llama-cpp-python ends the stream at once with "Automatic
streaming tool choice is not supported" in its log): the caller's ``learned`` remembers that, so the next
requests with tools go unstreamed from the start.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing

from engine.errors import ProviderError
from engine.model.types import StreamItem, StreamRetry


class EmptyStream(ProviderError):
    """A streamed request was answered ``200`` with no event (a probable overflow, on llama.cpp's servers)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, category="bad_response", status_code=200)


async def unstreamed_after_empty_stream(
    streamed: AsyncGenerator[StreamItem, None],
    unstreamed: Callable[[], AsyncGenerator[StreamItem, None]],
    learned: Callable[[], None] = lambda: None,
) -> AsyncGenerator[StreamItem, None]:
    """The items of ``streamed``; after an ``EmptyStream``, a retry notice and the items of ``unstreamed()``,
    then ``learned()`` when that unstreamed request was answered whole."""
    try:
        async with aclosing(streamed) as items:
            async for item in items:
                yield item
        return
    except EmptyStream as empty:
        message = f"{empty}: a probable context overflow; asking again without streaming to read the server's error"
    yield StreamRetry(category="bad_response", message=message, attempt=1, delay_s=0.0)
    async with aclosing(unstreamed()) as items:
        async for item in items:
            yield item
    learned()
