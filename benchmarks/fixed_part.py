"""The fixed part of every request (instructions and tool schemas) and what hive offers a small window.

For the agent `hive run` builds (built-in tools, skills, agents, advisor; no MCP servers), counted as hive
counts (engine/context/tokens.py): the instructions, the tools, the total, and, for windows of 2k, 4k, 8k
and 32k tokens, what hive sends after fitting the fixed part to `context.fixed_part_share` of the window
(compact schemas, fewer tools, shorter instructions). Goal: the fitted part within the share of each
window, or hive's clear refusal where even the minimum cannot fit.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from engine.agent import build_agent
from engine.config.loader import Overrides, load_config
from engine.context.fitting import FixedPartFit
from engine.context.fixed_part import WindowTooSmall
from engine.context.options import ContextOptions
from engine.context.policy import PassThrough
from engine.context.tokens import counter_for
from engine.context.window import Windows

MODEL = "openai/bench-model"
WINDOWS = (2_048, 4_096, 8_192, 32_768)
TASK = "make hello.py that prints a greeting, run it, and read it back"


def fixed_tokens(messages: tuple[dict[str, object], ...], tools: tuple[dict[str, object], ...]) -> tuple[int, int]:
    counter = counter_for(MODEL)
    system = counter.message(messages[0]) if messages and messages[0].get("role") == "system" else 0
    return system, counter.tools(tools)


def main() -> None:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as work:
        os.environ["HIVE_HOME"] = home
        overrides = Overrides(model=MODEL, api_base="http://127.0.0.1:9/v1", api_key="sk-bench")
        config = load_config(Path(work), overrides, persist=False)
        loop = build_agent(config, approver=None, data_dir=Path(home)).loop
        tools = tuple(spec.to_openai() for spec in loop.toolset.specs())
        history = ({"role": "system", "content": loop.instructions}, {"role": "user", "content": TASK})
        instructions, tool_tokens = fixed_tokens(history, tools)
        share = ContextOptions().fixed_part_share
        print(f"hive's fixed part ({counter_for(MODEL).source} tokens), {len(tools)} tools:")
        print(f"  instructions {instructions:6,}   tools {tool_tokens:6,}   total {instructions + tool_tokens:6,}")
        print(f"what hive offers, fitted to {share:.0%} of the window:")
        for window in WINDOWS:
            fit = FixedPartFit(PassThrough(), lambda: MODEL, Windows(window), share)
            try:
                sent = fit.prepare(history, tools)
            except WindowTooSmall as refused:
                print(f"  {window:6,}-token window: refused before any request: {refused}")
                continue
            system, offered = fixed_tokens(sent.messages, sent.tools)
            total = system + offered
            steps = ", ".join(fit.last.steps) if fit.last is not None and fit.last.steps else "sent whole"
            goal = "ok" if total <= window * share else "OVER the share"
            print(
                f"  {window:6,}-token window: instructions {system:5,}  tools {offered:5,} ({len(sent.tools):2} tools)  "
                f"total {total:5,} = {total / window:4.0%} of the window ({goal}; {steps})"
            )


if __name__ == "__main__":
    main()
