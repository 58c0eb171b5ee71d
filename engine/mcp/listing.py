"""What a server offers: its tools, resources and prompts, fetched page by page."""

from __future__ import annotations

from typing import Any

from msgspec import Struct

MAX_PAGES = 100
"""A server that keeps returning cursors is not followed forever."""


class Listing(Struct, frozen=True):
    """A server's last listing (SDK objects: ``mcp_types.Tool``, ``Resource``, ``Prompt``)."""

    tools: tuple[Any, ...] = ()
    resources: tuple[Any, ...] = ()
    prompts: tuple[Any, ...] = ()


async def fetch_listing(client: Any) -> Listing:
    """Everything ``client``'s server offers (resources and prompts only when it declares them)."""
    capabilities = client.server_capabilities
    tools = await fetch_tools(client)
    resources = await _pages(client.list_resources, "resources") if capabilities.resources else ()
    prompts = await _pages(client.list_prompts, "prompts") if capabilities.prompts else ()
    return Listing(tools=tools, resources=resources, prompts=prompts)


async def fetch_tools(client: Any) -> tuple[Any, ...]:
    """The server's tools, fetched again (never from the client's cache)."""
    return await _pages(client.list_tools, "tools")


async def _pages(method: Any, field: str) -> tuple[Any, ...]:
    items: list[Any] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await method(cursor=cursor, cache_mode="refresh")
        items.extend(getattr(page, field))
        cursor = page.next_cursor
        if not cursor:
            break
    return tuple(items)
