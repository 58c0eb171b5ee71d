"""The question when an MCP server asks to use the model: what it sends, who answers, and y/n.

Shown: the server, the model that will answer (and the models the server would prefer), the token
limit, and the server's system prompt and messages. Those are the server's text, not hive's: every
control character, escape sequence and bidi override in them is shown as a visible escape, never
obeyed by the terminal. y allows this one request; n (or Escape) refuses it; Ctrl-C cancels the run.
"""

from __future__ import annotations

from prompt_toolkit.formatted_text import HTML
from rich.console import Group, RenderableType
from rich.text import Text

from engine.mcp.sampling_request import SamplingQuestion
from hive_cli.repl.approver import Surface, answer_keys, ask_key
from hive_cli.terminal_text import visible

MAX_LINES = 40
"""Lines shown of each message and of the system prompt (the rest is counted)."""
CONTEXT_NOTE = "the server asked for hive's conversation as context: it never gets it"
ANSWERS = {"y": "yes", "n": "no", "escape": "no"}


def describe_sampling(question: SamplingQuestion) -> RenderableType:
    """Who asks, which model answers within how many tokens, and the server's text, every character visible."""
    header = Text("? ", style="bold magenta")
    header.append(f"MCP server {visible(question.server)}", style="bold")
    header.append(" asks to use the model")
    answering = f"  answered by {visible(question.model)}, at most {question.max_tokens:,} tokens"
    if question.preferred_models:
        answering += f" (the server would prefer {visible(', '.join(question.preferred_models))})"
    parts: list[RenderableType] = [header, Text(answering, style="dim")]
    if question.context_ignored:
        parts.append(Text(f"  {CONTEXT_NOTE}", style="dim"))
    if question.system_prompt:
        parts += _block("system prompt", question.system_prompt)
    for message in question.messages:
        parts += _block(message.role, message.text)
    return Group(*parts)


def sampling_prompt() -> HTML:
    """The question put to the person, with the keys that answer it."""
    return HTML(
        "  <ansimagenta><b>waiting for you</b></ansimagenta> · let the server use the model?"
        " <b>y</b> yes, once · <b>n</b> no "
    )


async def ask_sampling(view: Surface, question: SamplingQuestion) -> bool:
    """Show the request and wait for y or n (no answer, at the end of input, is a no)."""
    view.pause()
    try:
        view.print(describe_sampling(question))
        allowed = await ask_key(sampling_prompt(), answer_keys(ANSWERS)) == "yes"
        view.print(Text("  allowed once" if allowed else "  refused: the server is told no", style="dim"))
        return allowed
    finally:
        view.resume()


def _block(title: str, text: str) -> list[RenderableType]:
    lines = visible(text, keep_newlines=True, keep_tabs=True).split("\n")
    shown: list[RenderableType] = [Text(f"  {visible(title)}:", style="bold")]
    shown += [Text(f"    {line}") for line in lines[:MAX_LINES]]
    if len(lines) > MAX_LINES:
        shown.append(Text(f"    … {len(lines) - MAX_LINES} more lines", style="dim"))
    return shown
