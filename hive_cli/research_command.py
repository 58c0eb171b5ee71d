"""``hive research``: set up the run from the flags and settings, show its progress, print or save the report.

Exit status: 0 with a report; 1 when no source was found at all (the report says so); 2 for bad input
(empty question, missing folder, no usable provider); 3 when the budget stopped it (a partial report).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Protocol

from msgspec import Struct

from engine.config.loader import Overrides, load_config
from engine.disk_full import DiskFull, writing
from engine.errors import UserError
from engine.research.events import ResearchEvent, ResearchFinished
from engine.research.options import Depth, SearchProvider
from engine.research.pipeline import ResearchSetup, research
from engine.research.result import ResearchResult, StopReason
from engine.research.setup import build_setup, research_options
from hive_cli.output.summaries import cost_text, tokens_text, total_tokens_text
from hive_cli.terminal_text import echo, echo_json
from hive_cli.workdir import resolve_cwd

EXIT_CODES: dict[StopReason, int] = {
    "sufficient": 0,
    "max_iterations": 0,
    "stalled": 0,
    "no_sources": 1,
    "budget": 3,
}


class ResearchRequest(Struct, frozen=True, kw_only=True):
    """The ``hive research`` command line, parsed."""

    question: str
    depth: Depth | None = None
    provider: SearchProvider | None = None
    docs: Path | None = None
    allow_private_urls: bool = False
    max_iterations: int | None = None
    sufficiency_threshold: float | None = None
    min_sources: int | None = None
    verify: bool = False
    output: Path | None = None
    output_format: str = "text"
    model: str | None = None
    api_base: str | None = None
    api_key: str | None = None
    cwd: Path | None = None


class ProgressView(Protocol):
    """Shows a run's events as they come."""

    def handle(self, event: ResearchEvent) -> None: ...

    def close(self) -> None: ...


def run_research(request: ResearchRequest) -> int:
    """Run the research the request asks for; the exit status."""
    if not request.question.strip():
        raise UserError('the question is empty (give one: hive research "QUESTION")')
    if request.output is not None and not request.output.expanduser().parent.is_dir():
        raise UserError(f"--output {request.output}: the folder {request.output.parent} does not exist")
    setup = setup_for(request)
    view = progress_view()
    try:
        result = asyncio.run(_collect(request.question.strip(), setup, view))
    finally:
        view.close()
    deliver(result, request)
    return EXIT_CODES[result.stop_reason]


def setup_for(request: ResearchRequest) -> ResearchSetup:
    """The run's providers, model client, guards and rules, from the flags over the settings."""
    cwd = resolve_cwd(request.cwd)
    config = load_config(cwd, Overrides(model=request.model, api_base=request.api_base, api_key=request.api_key))
    options = research_options(
        config.research,
        depth=request.depth,
        provider=request.provider,
        max_iterations=request.max_iterations,
        sufficiency_threshold=request.sufficiency_threshold,
        min_sources_before_report=request.min_sources,
    )
    docs = request.docs.expanduser().resolve() if request.docs is not None else None
    return build_setup(
        config,
        options,
        os.environ,
        docs_dir=docs,
        allow_private_urls=request.allow_private_urls,
        verify=request.verify,
        model=None if request.model else options.model,
    )


def progress_view() -> ProgressView:
    """A live status on a terminal, plain lines on stderr otherwise."""
    from hive_cli.research_view import LiveProgress, PlainProgress

    if sys.stderr.isatty():
        from hive_cli.safe_console import SafeConsole

        return LiveProgress(SafeConsole(stderr=True, highlight=False))
    return PlainProgress(sys.stderr)


async def _collect(question: str, setup: ResearchSetup, view: ProgressView) -> ResearchResult:
    async for event in research(question, setup):
        view.handle(event)
        if isinstance(event, ResearchFinished):
            return event.result
    raise AssertionError("the research run ended without a result")


def deliver(result: ResearchResult, request: ResearchRequest) -> None:
    """Write the report where the request says, and a summary line on stderr.

    A report that finds no room in its file is printed instead (a research run is too dear to lose), and
    the run then fails with the full disk's message.
    """
    unsaved = _save_report(request.output, result.report) if request.output is not None else None
    if request.output_format == "json":
        echo_json(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    elif request.output is None or unsaved is not None:
        echo(result.report, nl=False)  # the report is made from web pages: shown, never obeyed
    echo(summary(result, None if unsaved is not None else request.output), err=True)
    if result.usage_by_stage:
        echo("hive: by stage: " + stage_usage(result), err=True)
    if result.web_unreachable:
        from engine.research.errors import local_documents_hint

        echo(
            f"hive: no page could be read: the web could not be reached; {local_documents_hint(result.question)}",
            err=True,
        )
    if unsaved is not None:
        raise unsaved


def _save_report(output: Path, report: str) -> DiskFull | None:
    """Write the report to ``output``; the full disk's error when it found no room (nothing partial is left)."""
    path = output.expanduser()
    kept = "the report is printed on standard output instead"
    try:
        with writing(path.name, path.parent, kept):
            write_atomically(path, report)
    except DiskFull as full:
        return full
    return None


def summary(result: ResearchResult, output: Path | None) -> str:
    """One line: sources, iterations, why it stopped, tokens, cost, and where the report went."""
    where = f" · report written to {output}" if output is not None else ""
    removed = f" · {len(result.removed_citations)} unknown citation(s) removed" if result.removed_citations else ""
    weak = f" · {len(result.weak_citations)} weak citation(s)" if result.weak_citations else ""
    return (
        f"hive: research {result.stop_reason.replace('_', ' ')} · {len(result.sources)} cited of "
        f"{result.read_sources} read · {len(result.iterations)} iteration(s) · tokens {tokens_text(result.usage)} · "
        f"cost {cost_text(result.usage)} · {result.usage.calls} model calls{removed}{weak}{where}"
    )


def stage_usage(result: ResearchResult) -> str:
    """ "plan 1 call, 240 tokens · notes 5 calls, ..." for the stages that called the model."""
    return " · ".join(
        f"{stage} {used.calls} call{'s' if used.calls != 1 else ''}, {total_tokens_text(used)}, {cost_text(used)}"
        for stage, used in result.usage_by_stage
    )


def write_atomically(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, so no reader sees half of it."""
    path = path.expanduser()
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
