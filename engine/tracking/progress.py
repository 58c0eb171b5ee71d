"""The ambient reporter: code inside any tool reports progress and usage with no parameter plumbing.

    from engine.tracking import progress
    progress.report("indexing", progress=3, total=10)
    progress.report_usage(Usage(prompt_tokens=120, completion_tokens=30, calls=1))

Outside a tracked tool call both are no-ops. The ``ToolProgress`` event carries the calling tool's
scope. Safe to call from worker threads started with ``asyncio.to_thread``.
"""

from __future__ import annotations

from engine.events import ToolProgress
from engine.tracking.scopes import ToolScope, current_scope
from engine.usage import Usage


def report(status: str, progress: float | None = None, total: float | None = None) -> None:
    """Report what the running tool is doing (and how far along it is, when known)."""
    scope = current_scope.get()
    if not isinstance(scope, ToolScope):
        return
    scope.publish(
        ToolProgress(
            call_id=scope.call.id,
            tool_name=scope.call.name,
            status=status,
            progress=progress,
            total=total,
            scope=scope.info,
            agent=scope.request.agent,
        )
    )


def report_usage(usage: Usage, model: str | None = None) -> None:
    """Count usage (e.g. a model call the tool made) against the running tool's scope; with ``model``, in the
    run's usage by model too."""
    scope = current_scope.get()
    if scope is not None:
        scope.add_usage(usage)
        if model is not None:
            scope.request.merge_models({model: usage})
