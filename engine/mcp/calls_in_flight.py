"""The tool calls to one server running now, so that what the server asks of the person is tied to them.

A server asks hive for something (a model call, a value) on behalf of one of its tools, but servers of
the older protocol send that request on their own channel, outside the call that caused it. So a
request is taken only while a call to that server runs, and what answers it (a question on screen) is
withdrawn when the last of those calls ends: cancelled with the run (Ctrl-C), or out of time. Without
this a question could stay on screen after its run ended, or come up while the person types a prompt.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import TypeVar

from engine.tracking.scopes import Scope, current_scope

T = TypeVar("T")


class CallsInFlight:
    """Counts one server's running calls; ``while_calling`` runs work only as long as one of them runs."""

    def __init__(self) -> None:
        self._count = 0
        self._work: set[asyncio.Task[object]] = set()
        self._scopes: list[Scope | None] = []
        """The tracking scope of each running call, latest last: what a request spends counts in its call's report."""

    @asynccontextmanager
    async def calling(self) -> AsyncIterator[None]:
        """Around one call to the server; the last one to end withdraws the work still running, and waits for it
        to wind down (a question taken off the screen) before the call's own end goes on."""
        self._count += 1
        scope = current_scope.get()
        self._scopes.append(scope)
        try:
            yield
        finally:
            self._count -= 1
            del self._scopes[len(self._scopes) - 1 - self._scopes[::-1].index(scope)]
            if self._count == 0 and self._work:
                left = tuple(self._work)
                for task in left:
                    task.cancel()
                await asyncio.wait(left)

    async def while_calling(self, work: Awaitable[T], refused: Callable[[bool], T]) -> T:
        """``work``'s answer, or ``refused(started)`` when no call runs (``started`` False) or the last one ended
        first (True: ``work`` was cancelled)."""
        if self._count == 0:
            if asyncio.iscoroutine(work):
                work.close()  # never awaited: closed so that no warning says so
            return refused(False)
        token = current_scope.set(self._scopes[-1])  # the task runs in the latest call's scope (a copy of this context)
        try:
            task: asyncio.Task[T] = asyncio.ensure_future(work)
        finally:
            current_scope.reset(token)
        self._work.add(task)
        task.add_done_callback(self._work.discard)
        try:
            await asyncio.wait((task,))
        finally:
            task.cancel()  # nothing when it is done; when this request itself is cancelled, the work goes too
        if task.cancelled():
            return refused(True)
        return task.result()
