"""``/research [--docs DIR] [--depth D] [--provider P] QUESTION``: the research pipeline inside the REPL.

Progress shows inline; the report is printed and joins the conversation (the question as a user
message, the report as the answer), so follow-up questions can build on it and its sources.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from rich.markdown import Markdown
from rich.text import Text

from engine.errors import UserError
from hive_cli.terminal_text import visible_markdown

if TYPE_CHECKING:
    from engine.research.result import ResearchResult
    from hive_cli.repl.state import ReplState
    from hive_cli.repl.view import ReplView

USAGE = "usage: /research [--docs DIR] [--depth quick|standard|deep] [--provider NAME] QUESTION"
FLAGS = ("--docs", "--depth", "--provider")


def parse_research(arg: str, cwd: Path) -> tuple[str, dict[str, str], Path | None]:
    """The question, the option changes and the documents folder of a ``/research`` line."""
    try:
        words = shlex.split(arg)
    except ValueError as error:
        raise UserError(f"{USAGE} ({error})") from None
    flags: dict[str, str] = {}
    while words and words[0] in FLAGS:
        if len(words) < 2:
            raise UserError(USAGE)
        flags[words[0][2:]] = words[1]
        words = words[2:]
    question = " ".join(words).strip()
    if not question:
        raise UserError(USAGE)
    docs = flags.pop("docs", None)
    return question, flags, (cwd / Path(docs).expanduser()).resolve() if docs else None


async def research_command(state: ReplState, view: ReplView, arg: str) -> None:
    """Run the research, show it, and add it to the conversation."""
    from engine.research.events import ResearchFinished
    from engine.research.pipeline import research
    from engine.research.setup import build_setup, research_options
    from hive_cli.research_view import Progress, describe

    question, changes, docs = parse_research(arg, state.cwd)
    config = await state.ready()
    options = research_options(config.research, **changes)
    setup = build_setup(config, options, os.environ, docs_dir=docs, model=state.chosen_model or options.model)
    progress = Progress()
    result: ResearchResult | None = None
    view.waiting("research: starting")
    try:
        async for event in research(question, setup):
            progress.update(event)
            line = describe(event)
            if line is not None:
                view.print(Text("  " + line, style="dim"))
            view.waiting("research: " + progress.status())
            if isinstance(event, ResearchFinished):
                result = event.result
    finally:
        view.pause()
    assert result is not None
    await _show_and_keep(state, view, result)


async def _show_and_keep(state: ReplState, view: ReplView, result: ResearchResult) -> None:
    from hive_cli.output.summaries import cost_text, tokens_text

    view.print(Markdown(visible_markdown(result.report)))  # made from web pages: shown, never obeyed
    view.print(
        Text(
            f"research {result.stop_reason.replace('_', ' ')} · {len(result.sources)} cited of {result.read_sources} "
            f"read · tokens {tokens_text(result.usage)} · cost {cost_text(result.usage)}",
            style="dim",
        )
    )
    session = await state.ensure_session(state.approver() if state.approver else None, title=result.question)
    session.add_exchange(f"/research {result.question}", result.report, result.usage)
