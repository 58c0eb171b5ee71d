"""The HTTP transport that fills a ``WireRecord`` (imported only once litellm, and so the OpenAI SDK, is loaded).

The OpenAI SDK (3.x) is built on ``httpx2``, httpx's successor, so the transport is one of its.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx2 as httpx

from engine.model.wire_record import WireRecord, current_record


class WireTap(httpx.AsyncBaseTransport):
    """An httpx transport that fills ``current_record`` with the response passing through it."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send the request through the inner transport, recording the response if a record is set."""
        record = current_record.get()
        if record is None:
            return await self._inner.handle_async_request(request)
        record.url = str(request.url.copy_with(query=None))
        response = await self._inner.handle_async_request(request)
        record.status = response.status_code
        record.content_type = response.headers.get("content-type", "")
        return httpx.Response(
            response.status_code,
            headers=response.headers,
            stream=_RecordedStream(response.stream, record),
            extensions=response.extensions,
            request=request,
        )

    async def aclose(self) -> None:
        """Close the inner transport."""
        await self._inner.aclose()


class _RecordedStream(httpx.AsyncByteStream):
    def __init__(self, inner: Any, record: WireRecord) -> None:
        self._inner = inner
        self._record = record

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self._inner:
            self._record.take(chunk)
            yield chunk
        self._record.finish()

    async def aclose(self) -> None:
        await self._inner.aclose()


def tapped_openai_client(base_url: str, api_key: str) -> Any:
    """An OpenAI SDK client for ``base_url`` whose responses fill ``current_record``; litellm retries nothing."""
    import openai

    http_client = httpx.AsyncClient(transport=WireTap(), timeout=None)
    return openai.AsyncOpenAI(base_url=base_url, api_key=api_key, http_client=http_client, max_retries=0)
