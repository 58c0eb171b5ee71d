"""``hive research``: its signature only; the pipeline is imported when the command runs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from hive_cli.cli_base import exit_with
from hive_cli.cli_options import cwd_option, debug_option, model_options, positive
from hive_cli.errors import exit_on_error

if TYPE_CHECKING:
    from engine.research.options import Depth, SearchProvider

DEPTHS = ("quick", "standard", "deep")
PROVIDERS = ("searxng", "tavily", "brave", "duckduckgo", "docs")


def _threshold(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    if value is not None and not 0 <= value <= 1:
        raise click.BadParameter("must be between 0 and 1")
    return value


def _not_negative(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    if value is not None and value < 0:
        raise click.BadParameter("must be 0 or more")
    return value


@click.command("research")
@click.argument("question", metavar="QUESTION", help="What to find out.")
@click.option("--depth", type=click.Choice(DEPTHS), help="quick, standard or deep (default: settings, else standard).")
@click.option(
    "--provider",
    type=click.Choice(PROVIDERS),
    help="Where to search: searxng, tavily, brave, duckduckgo or docs (with --docs).",
)
@click.option(
    "--docs", metavar="DIR", type=click.Path(path_type=Path), help="Search the text and markdown files of this folder."
)
@click.option("--allow-private-urls", is_flag=True, help="Let the fetcher read private and loopback addresses.")
@click.option(
    "--max-iterations", metavar="N", type=int, callback=positive, help="At most N iterations (the depth caps it)."
)
@click.option(
    "--sufficiency-threshold", metavar="SCORE", type=float, callback=_threshold, help="Stop at this score (0..1)."
)
@click.option(
    "--min-sources",
    metavar="N",
    type=int,
    callback=_not_negative,
    help="Keep looking below N sources while gaps remain.",
)
@click.option("--verify", is_flag=True, help="Check each cited sentence against its source.")
@click.option("--output", metavar="FILE", type=click.Path(path_type=Path), help="Write the markdown report here.")
@click.option(
    "--output-format",
    "-o",
    type=click.Choice(("text", "json")),
    default="text",
    show_default=True,
    help="text (the report) or json (one object).",
)
@model_options
@cwd_option
@debug_option
def research_command(question: str, debug: bool, **flags: Any) -> None:
    """Research a question: search, read, judge, and write a report whose citations hive checks."""
    with exit_on_error(debug):
        from hive_cli.research_command import ResearchRequest, run_research

        request = ResearchRequest(
            question=question,
            depth=cast("Depth | None", flags["depth"]),
            provider=cast("SearchProvider | None", flags["provider"]),
            docs=flags["docs"],
            allow_private_urls=flags["allow_private_urls"],
            max_iterations=flags["max_iterations"],
            sufficiency_threshold=flags["sufficiency_threshold"],
            min_sources=flags["min_sources"],
            verify=flags["verify"],
            output=flags["output"],
            output_format=flags["output_format"],
            model=flags["model"],
            api_base=flags["api_base"],
            api_key=flags["api_key"],
            cwd=flags["cwd"],
        )
        exit_with(run_research(request))
