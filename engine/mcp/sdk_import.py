"""The ``mcp`` SDK imported in a daemon thread, so its second of import work never holds up the event loop.

A session that offers a server's tools from the cache sends its first request while the server
connects; importing the SDK on the event loop would stall that request (and every event) for the
length of the import. The import runs once per process, in a daemon thread (a run that ends first
does not wait for it); the connections await it. An import that fails fails each connection that needs it.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
from collections.abc import Sequence
from concurrent.futures import Future

_COMMON = ("mcp", "mcp_types", "mcp.shared.message")
_BY_TRANSPORT: dict[str, tuple[str, ...]] = {
    "stdio": _COMMON,
    "http": (*_COMMON, "httpx2", "mcp.client.streamable_http"),
    "sse": (*_COMMON, "httpx2", "mcp.client.sse"),
}
_lock = threading.Lock()
_imports: dict[tuple[str, ...], Future[None]] = {}


async def import_sdk(transport: str) -> None:
    """Return once the modules a ``transport`` connection uses are imported; raises what the import raised."""
    await asyncio.wrap_future(_started(_BY_TRANSPORT.get(transport, _COMMON)))


def _started(modules: tuple[str, ...]) -> Future[None]:
    with _lock:
        job = _imports.get(modules)
        if job is None:
            job = Future()
            job.set_running_or_notify_cancel()  # one waiter's cancellation must not cancel the import for the others
            _imports[modules] = job
            threading.Thread(target=_import, args=(job, modules), name="mcp-import", daemon=True).start()
    return job


def _import(job: Future[None], modules: Sequence[str]) -> None:
    try:
        for name in modules:
            importlib.import_module(name)
    except BaseException as exc:  # reported to every connection that waits for it
        job.set_exception(exc)
    else:
        job.set_result(None)
