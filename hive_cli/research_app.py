"""``hive research``: its signature only; the pipeline is imported when the command runs."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from hive_cli.cli_options import ApiBaseOpt, ApiKeyOpt, CwdOpt, DebugOpt, ModelOpt, positive
from hive_cli.errors import exit_on_error


class DepthChoice(StrEnum):
    """How far ``hive research`` goes: iterations and queries per iteration."""

    quick = "quick"
    standard = "standard"
    deep = "deep"


class ProviderChoice(StrEnum):
    """Where ``hive research`` searches."""

    searxng = "searxng"
    tavily = "tavily"
    brave = "brave"
    duckduckgo = "duckduckgo"
    docs = "docs"


class ResearchFormat(StrEnum):
    """How ``hive research`` reports."""

    text = "text"
    json = "json"


def _threshold(value: float | None) -> float | None:
    if value is not None and not 0 <= value <= 1:
        raise typer.BadParameter("must be between 0 and 1")
    return value


def _not_negative(value: int | None) -> int | None:
    if value is not None and value < 0:
        raise typer.BadParameter("must be 0 or more")
    return value


def research_command(
    question: Annotated[str, typer.Argument(metavar="QUESTION", help="What to find out.")],
    depth: Annotated[
        DepthChoice | None, typer.Option("--depth", help="quick, standard or deep (default: settings, else standard).")
    ] = None,
    provider: Annotated[
        ProviderChoice | None,
        typer.Option("--provider", help="Where to search: searxng, tavily, brave, duckduckgo or docs (with --docs)."),
    ] = None,
    docs: Annotated[
        Path | None, typer.Option("--docs", metavar="DIR", help="Search the text and markdown files of this folder.")
    ] = None,
    allow_private_urls: Annotated[
        bool, typer.Option("--allow-private-urls", help="Let the fetcher read private and loopback addresses.")
    ] = False,
    max_iterations: Annotated[
        int | None,
        typer.Option(
            "--max-iterations", metavar="N", callback=positive, help="At most N iterations (the depth caps it)."
        ),
    ] = None,
    sufficiency_threshold: Annotated[
        float | None,
        typer.Option(
            "--sufficiency-threshold", metavar="SCORE", callback=_threshold, help="Stop at this score (0..1)."
        ),
    ] = None,
    min_sources: Annotated[
        int | None,
        typer.Option(
            "--min-sources", metavar="N", callback=_not_negative, help="Keep looking below N sources while gaps remain."
        ),
    ] = None,
    verify: Annotated[bool, typer.Option("--verify", help="Check each cited sentence against its source.")] = False,
    output: Annotated[
        Path | None, typer.Option("--output", metavar="FILE", help="Write the markdown report here.")
    ] = None,
    output_format: Annotated[
        ResearchFormat, typer.Option("--output-format", "-o", help="text (the report) or json (one object).")
    ] = ResearchFormat.text,
    model: ModelOpt = None,
    api_base: ApiBaseOpt = None,
    api_key: ApiKeyOpt = None,
    cwd: CwdOpt = None,
    debug: DebugOpt = False,
) -> None:
    """Research a question: search, read, judge, and write a report whose citations hive checks."""
    with exit_on_error(debug):
        from hive_cli.research_command import ResearchRequest, run_research

        request = ResearchRequest(
            question=question,
            depth=None if depth is None else depth.value,
            provider=None if provider is None else provider.value,
            docs=docs,
            allow_private_urls=allow_private_urls,
            max_iterations=max_iterations,
            sufficiency_threshold=sufficiency_threshold,
            min_sources=min_sources,
            verify=verify,
            output=output,
            output_format=output_format.value,
            model=model,
            api_base=api_base,
            api_key=api_key,
            cwd=cwd,
        )
        raise typer.Exit(run_research(request))
