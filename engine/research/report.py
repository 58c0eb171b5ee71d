"""The report as code finishes it: settled citations, the optional citation check, the sources section.

Without sources there is no report to write, only a note saying nothing was found. When the budget
ran out first, the report is the notes taken so far (each cited to its source), said to be partial.
"""

from __future__ import annotations

from collections.abc import Mapping

from msgspec import Struct

from engine.research.citations import CitedReport, settle_citations, sources_section
from engine.research.result import Source, StopReason, WeakCitation
from engine.research.verify import check_citations, check_section


class ReportInputs(Struct, frozen=True, kw_only=True):
    """What the report is made from."""

    question: str
    written: str | None
    """The writer's text; None when the writer was not called (no sources, or the budget ran out)."""
    sources: Mapping[int, Source]
    stop: StopReason
    budget_note: str = ""
    verify: bool = False


class Report(Struct, frozen=True, kw_only=True):
    """The finished report."""

    text: str
    cited: CitedReport
    weak: tuple[WeakCitation, ...] = ()


def build_report(inputs: ReportInputs) -> Report:
    """The markdown report for ``inputs``."""
    if not inputs.sources:
        return Report(text=no_sources_text(inputs.question), cited=CitedReport(body="", sources=(), removed=()))
    draft = inputs.written if inputs.written is not None else partial_text(inputs)
    cited = settle_citations(draft, inputs.sources)
    body, weak = check_citations(cited.body, cited.sources) if inputs.verify else (cited.body, ())
    parts = [body]
    if cited.removed:
        numbers = ", ".join(str(n) for n in cited.removed)
        parts.append(f"_hive removed {len(cited.removed)} citation(s) of sources that do not exist: {numbers}._")
    if inputs.verify:
        parts.append(check_section(weak))
    parts.append(sources_section(cited.sources))
    return Report(text="\n\n".join(parts) + "\n", cited=cited, weak=weak)


def no_sources_text(question: str) -> str:
    """The report when nothing was found: said plainly, nothing invented."""
    return (
        f"# {question}\n\nNo sources were found for this question, so no report was written "
        "(hive does not answer research questions without sources).\n"
    )


def partial_text(inputs: ReportInputs) -> str:
    """The notes of every source, cited, under a line saying the run stopped early."""
    why = inputs.budget_note or "the budget ran out"
    lines = [
        f"# {inputs.question}",
        f"**Partial report:** the research stopped early ({why}). What follows are the notes taken from the "
        f"{len(inputs.sources)} source(s) read so far, not a written report.",
    ]
    lines += [f"- {' '.join(s.notes.split()) or 'No notes.'} [{s.number}]" for s in inputs.sources.values()]
    return "\n\n".join(lines)
