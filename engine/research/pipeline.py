"""The research loop: an initial search, then plan → search → read → notes → judge, until the stop rule says write.

``research`` runs it and yields ``ResearchEvent``s, ending with ``ResearchFinished``. The stop rule
lives in ``controller``; the report and its citations are put together in ``report``.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence

from msgspec import Struct

from engine.model.types import ModelClient
from engine.policy.guards import ResultGuard
from engine.research import prompts
from engine.research.controller import PRESETS, LoopState, is_repeat, max_iterations, stop_reason
from engine.research.errors import ResearchUnavailable, WebUnreachable
from engine.research.events import (
    IterationStarted,
    Judged,
    QueriesPlanned,
    ResearchEvent,
    ResearchFinished,
    ResearchNotice,
    SourceRead,
    SourcesFound,
    Stage,
    StageStarted,
)
from engine.research.gather import GuardedPage, ProvidersFailed, Searcher, clean_hits, normalise_url, read_pages
from engine.research.model_calls import BudgetSpent, ResearchModel
from engine.research.options import ResearchOptions
from engine.research.replies import Judgement, parse_judgement, parse_queries
from engine.research.report import ReportInputs, build_report
from engine.research.result import IterationRecord, ResearchResult, Source, StopReason
from engine.research.sources import PageFetcher, SearchHit, SearchProvider
from engine.usage import UsageLimits


class ResearchSetup(Struct, frozen=True, kw_only=True):
    """Everything a research run uses: where it searches and reads, the model, the rules."""

    providers: Sequence[SearchProvider]
    """Tried in order: the next takes over when one raises ``SearchError``."""
    fetcher: PageFetcher
    client: ModelClient
    """The same client the agent uses (usage and cost come back on every reply)."""
    options: ResearchOptions
    guards: Sequence[ResultGuard] = ()
    """Result guards every fetched text passes before a model sees it."""
    verify: bool = False
    """Check each cited sentence against its source and flag weak citations."""


async def research(question: str, setup: ResearchSetup) -> AsyncIterator[ResearchEvent]:
    """Research ``question``: progress events, then ``ResearchFinished``; errors propagate to the caller."""
    queue: asyncio.Queue[ResearchEvent | BaseException] = asyncio.Queue()
    run = ResearchRun(question, setup, queue.put_nowait)
    task = asyncio.create_task(run.run())
    task.add_done_callback(lambda done: queue.put_nowait(_outcome(done)))
    try:
        while True:
            item = await queue.get()
            if isinstance(item, BaseException):
                raise item
            yield item
            if isinstance(item, ResearchFinished):
                return
    finally:
        task.cancel()


def _outcome(task: asyncio.Task[ResearchResult]) -> ResearchEvent | BaseException:
    if task.cancelled():
        return asyncio.CancelledError()
    error = task.exception()
    return error if error is not None else ResearchFinished(result=task.result())


class ResearchRun:
    """One research run's state: the sources read, the queries searched, the iterations judged."""

    def __init__(self, question: str, setup: ResearchSetup, emit: Callable[[ResearchEvent], None]) -> None:
        self.question = question
        self.setup = setup
        self.options = setup.options
        self.preset = PRESETS[setup.options.depth]
        self.emit = emit
        limits = UsageLimits(max_total_tokens=self.options.max_total_tokens, max_cost_usd=self.options.max_cost_usd)
        self.model = ResearchModel(setup.client, limits, emit)
        self.searcher = Searcher(setup.providers, self.options.max_search_retries_per_iteration, emit)
        self.sources: dict[int, Source] = {}
        self.seen: set[str] = set()
        self.searched: list[str] = []
        self.iterations: list[IterationRecord] = []
        self.dropped: list[tuple[str, str]] = []
        self.offline_drops = 0
        self.budget_note = ""

    async def run(self) -> ResearchResult:
        """Search, loop, write; the result (a partial one when the budget ran out)."""
        stop: StopReason
        try:
            stop = await self._loop(await self._initial_search())
        except BudgetSpent as spent:
            stop, self.budget_note = "budget", str(spent)
        return await self._write(stop)

    async def _initial_search(self) -> list[SearchHit]:
        self._stage("search", 0)
        try:
            return await self.searcher.search(self.question, self.preset.results_per_query)
        except ProvidersFailed as failed:
            if failed.unreachable:
                raise WebUnreachable(str(failed), self.question) from None
            raise ResearchUnavailable(f"no search provider answered: {failed}") from None

    async def _loop(self, initial: list[SearchHit]) -> StopReason:
        judgement = Judgement(score=0.0)
        limit = max_iterations(self.options)
        for iteration in range(1, limit + 1):
            self.emit(IterationStarted(iteration=iteration, max_iterations=limit))
            self.searcher.next_iteration()
            queries = await self._plan(iteration, initial, judgement)
            if not queries and iteration > 1:
                return "stalled"  # every planned query was searched already
            hits = await self._search(iteration, queries, initial if iteration == 1 else [])
            new_sources = await self._read(iteration, hits)
            judgement = await self._judge(iteration)
            self._record(iteration, queries, new_sources, judgement)
            state = LoopState(
                iteration=iteration,
                judgement=judgement,
                sources=len(self.sources),
                new_sources=new_sources,
                fresh_queries=len(queries),
            )
            reason = stop_reason(state, self.options)
            if reason is not None:
                return reason
        return "max_iterations"

    async def _plan(self, iteration: int, initial: list[SearchHit], judgement: Judgement) -> tuple[str, ...]:
        self._stage("plan", iteration)
        count = self.preset.queries
        gaps = (*judgement.gaps, *(f"try: {q}" for q in judgement.next_queries))
        shown = await clean_hits(initial, self.setup.guards) if iteration == 1 else []
        user = prompts.plan_prompt(self.question, shown, self.searched, gaps)
        planned = parse_queries(await self.model.ask("plan", prompts.PLAN.format(count=count), user), count)
        if not planned:
            self.emit(ResearchNotice(message="the plan was not the JSON list asked for; searching without it"))
            planned = judgement.next_queries[:count] or (self.question,)
        fresh = tuple(q for q in planned if not is_repeat(q, self.searched))
        self.searched.extend(fresh)
        self.emit(QueriesPlanned(iteration=iteration, queries=fresh))
        return fresh

    async def _search(self, iteration: int, queries: Sequence[str], initial: list[SearchHit]) -> list[SearchHit]:
        self._stage("search", iteration)
        found = list(initial)
        for query in queries:
            try:
                found += await self.searcher.search(query, self.preset.results_per_query)
            except ProvidersFailed as failed:
                self.emit(ResearchNotice(message=f"search stopped working: {failed}"))
                break
        new = self._unseen(found)
        self.emit(SourcesFound(iteration=iteration, new=len(new), total=len(self.seen)))
        return new[: self.preset.pages_per_iteration]

    def _unseen(self, hits: Sequence[SearchHit]) -> list[SearchHit]:
        new = []
        for hit in hits:
            key = normalise_url(hit.url)
            if key not in self.seen:
                self.seen.add(key)
                new.append(hit)
        return new

    async def _read(self, iteration: int, hits: list[SearchHit]) -> int:
        self._stage("fetch", iteration)
        pages = await read_pages(hits, self.setup.fetcher, self.setup.guards, self._dropped)
        if pages:
            self._stage("notes", iteration)
        for page in pages:
            if page.flagged:
                self.emit(ResearchNotice(message=f"a guard flagged {page.page.url}: its text is kept with the warning"))
            self._register(page, await self._notes(page))
        return len(pages)

    def _dropped(self, event: ResearchEvent) -> None:
        if event.kind == "source_dropped":
            self.dropped.append((event.url, event.reason))
            self.offline_drops += event.unreachable
        self.emit(event)

    async def _notes(self, page: GuardedPage) -> str:
        user = prompts.notes_prompt(self.question, page.page.title or page.hit.title, page.text)
        return (await self.model.ask("notes", prompts.NOTES, user)).strip()

    def _register(self, page: GuardedPage, notes: str) -> None:
        number = len(self.sources) + 1
        source = Source(
            number=number,
            url=page.page.url,
            title=page.page.title or page.hit.title or page.page.url,
            provider=page.hit.provider,
            accessed=page.page.accessed,
            text=page.text,
            notes=notes,
            flagged=page.flagged,
        )
        self.sources[number] = source
        self.emit(SourceRead(number=number, title=source.title, url=source.url, read=len(self.sources)))

    async def _judge(self, iteration: int) -> Judgement:
        if not self.sources:
            judgement = Judgement(score=0.0, gaps=("no source was read yet",))
        else:
            self._stage("judge", iteration)
            user = prompts.judge_prompt(self.question, list(self.sources.values()))
            judgement = parse_judgement(await self.model.ask("judge", prompts.JUDGE, user))
            if not judgement.readable:
                self.emit(
                    ResearchNotice(message="the judge's reply was not the JSON asked for: counted as insufficient")
                )
        self.emit(Judged(iteration=iteration, score=judgement.score, gaps=judgement.gaps, readable=judgement.readable))
        return judgement

    def _record(self, iteration: int, queries: Sequence[str], new_sources: int, judgement: Judgement) -> None:
        record = IterationRecord(
            number=iteration,
            queries=tuple(queries),
            new_sources=new_sources,
            score=judgement.score,
            gaps=judgement.gaps,
            judge_readable=judgement.readable,
        )
        self.iterations.append(record)

    async def _write(self, stop: StopReason) -> ResearchResult:
        written: str | None = None
        if self.sources and stop != "budget":
            self._stage("write", len(self.iterations))
            try:
                user = prompts.write_prompt(self.question, list(self.sources.values()))
                written = await self.model.ask("write", prompts.WRITE, user)
            except BudgetSpent as spent:
                stop, self.budget_note = "budget", str(spent)
        inputs = ReportInputs(
            question=self.question,
            written=written,
            sources=self.sources,
            stop=stop if self.sources else "no_sources",
            budget_note=self.budget_note,
            verify=self.setup.verify,
        )
        report = build_report(inputs)
        return ResearchResult(
            question=self.question,
            report=report.text,
            sources=report.cited.sources,
            iterations=tuple(self.iterations),
            stop_reason=inputs.stop,
            usage=self.model.total,
            usage_by_stage=tuple(self.model.by_stage.items()),
            removed_citations=report.cited.removed,
            dropped=tuple(self.dropped),
            weak_citations=report.weak,
            read_sources=len(self.sources),
            web_unreachable=not self.sources and 0 < self.offline_drops == len(self.dropped),
        )

    def _stage(self, stage: Stage, iteration: int) -> None:
        self.emit(StageStarted(stage=stage, iteration=iteration))
