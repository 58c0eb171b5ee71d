"""Observation masking's minimum result length: what masking short results saves, against how many it hides.

A scripted 64-round exploration of hive's own repository (list_directory, glob_files, grep_files, read_file
and todo_write, the mix a coding task opens with) runs through the real loop with hive's real tools, once per
``observation_masking_min_chars``. Results older than the protected rounds are masked (10 protected, batches
of 5, the defaults). For each minimum: the tokens sent over all requests, the share of masking's saving kept,
and how many results were masked, with how many of those were short (under 1,000 characters).

A masked result the model needs again costs a ``recall_result`` round: a whole request more. Masking a short
result saves little (its placeholder is about 110 characters), so a minimum is worth it when it keeps nearly
all of the saving while hiding far fewer results. Goal: the default keeps at least 95% of the saving.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from engine.context.masking import ObservationMasking, is_masked
from engine.context.options import ContextOptions
from engine.context.tokens import TokenCounter
from engine.events import ToolCall, Usage
from engine.model.types import ModelReply, ModelRequest
from engine.run.loop import AgentLoop, LoopOptions, ToolEnvironment
from engine.tools.files import ListDirectoryTool, ReadFileTool
from engine.tools.registry import ToolRegistry
from engine.tools.search import GlobFilesTool, GrepFilesTool, default_search_backend
from engine.tools.todo import TodoWriteTool

MODEL = "openai/gpt-4o"
ROOT = Path(__file__).resolve().parent.parent
MINIMUMS = (0, 250, 500, 1_000, 2_000, 4_000)
SHORT = 1_000


def _todo(step: int) -> dict[str, Any]:
    items = ["read the context code", "find the masking tests", "add the option", "run the tests"]
    return {
        "todos": [{"content": item, "status": "completed" if i < step else "pending"} for i, item in enumerate(items)]
    }


SCRIPT: tuple[tuple[str, dict[str, Any]], ...] = (
    ("list_directory", {"path": "."}),
    ("todo_write", _todo(0)),
    ("list_directory", {"path": "engine"}),
    ("list_directory", {"path": "engine/context"}),
    ("read_file", {"path": "engine/context/masking.py"}),
    ("grep_files", {"pattern": "ObservationMasking", "path": "engine"}),
    ("read_file", {"path": "engine/context/options.py"}),
    ("read_file", {"path": "engine/context/management.py"}),
    ("glob_files", {"pattern": "test_*mask*.py"}),
    ("grep_files", {"pattern": "protected_rounds"}),
    ("read_file", {"path": "engine/context/policy.py"}),
    ("todo_write", _todo(1)),
    ("read_file", {"path": "engine/context/compaction.py"}),
    ("grep_files", {"pattern": "def prepare", "path": "engine/context"}),
    ("list_directory", {"path": "tests/engine/context"}),
    ("read_file", {"path": "engine/context/window.py"}),
    ("grep_files", {"pattern": "recall_result", "glob": "*.py"}),
    ("read_file", {"path": "engine/context/recall.py"}),
    ("glob_files", {"pattern": "engine/context/*.py"}),
    ("read_file", {"path": "engine/context/caching.py"}),
    ("grep_files", {"pattern": "class .*Options", "path": "engine"}),
    ("read_file", {"path": "engine/context/reminder.py"}),
    ("read_file", {"path": "engine/run/loop.py", "offset": 1}),
    ("grep_files", {"pattern": "max_tool_result_chars"}),
    ("read_file", {"path": "engine/tools/result_cap.py"}),
    ("todo_write", _todo(2)),
    ("grep_files", {"pattern": "context\\.", "path": "engine/trust"}),
    ("read_file", {"path": "engine/trust/tighten.py"}),
    ("list_directory", {"path": "docs"}),
    ("grep_files", {"pattern": "observation_masking", "path": "docs"}),
    ("read_file", {"path": "docs/settings.md"}),
    ("glob_files", {"pattern": "*.md"}),
    ("read_file", {"path": "engine/context/tokens.py"}),
    ("grep_files", {"pattern": "TokenCounter\\(", "glob": "*.py"}),
    ("read_file", {"path": "engine/context/fitting.py"}),
    ("grep_files", {"pattern": "is_masked"}),
    ("list_directory", {"path": "engine/run"}),
    ("read_file", {"path": "engine/run/state.py"}),
    ("grep_files", {"pattern": "def run_tool_round", "path": "engine"}),
    ("read_file", {"path": "engine/run/tool_round.py"}),
    ("glob_files", {"pattern": "tests/engine/context/*.py"}),
    ("grep_files", {"pattern": "ContextOptions\\(", "glob": "*.py"}),
    ("read_file", {"path": "engine/conversation.py"}),
    ("todo_write", _todo(3)),
    ("grep_files", {"pattern": "batch_rounds"}),
    ("read_file", {"path": "engine/context/fixed_part.py"}),
    ("list_directory", {"path": "benchmarks"}),
    ("read_file", {"path": "benchmarks/context.py"}),
    ("grep_files", {"pattern": "PLACEHOLDER_START"}),
    ("read_file", {"path": "engine/context/overflow.py"}),
    ("grep_files", {"pattern": "def key_argument", "path": "engine"}),
    ("read_file", {"path": "engine/context/served_window.py"}),
    ("glob_files", {"pattern": "Makefile"}),
    ("read_file", {"path": "Makefile"}),
    ("grep_files", {"pattern": "ruff", "path": "Makefile"}),
    ("read_file", {"path": "pyproject.toml"}),
    ("grep_files", {"pattern": "class Conversation", "path": "engine"}),
    ("read_file", {"path": "engine/context/estimated_usage.py"}),
    ("list_directory", {"path": "engine/context"}),
    ("grep_files", {"pattern": "min_chars"}),
    ("read_file", {"path": "engine/context/bundled_tokenizer.py"}),
    ("grep_files", {"pattern": "def placeholder", "path": "engine/context"}),
    ("read_file", {"path": "engine/context/repo_map_section.py"}),
    ("todo_write", _todo(4)),
)


@dataclass
class ExploringModel:
    """Calls the scripted tools one round each, then answers; records every request."""

    model: str = MODEL
    requests: list[ModelRequest] = field(default_factory=list)

    async def stream(self, request: ModelRequest) -> Any:
        self.requests.append(request)
        usage = Usage(prompt_tokens=1, completion_tokens=1, calls=1)
        number = len(self.requests)
        if number > len(SCRIPT):
            yield ModelReply(text="Done.", usage=usage)
            return
        name, arguments = SCRIPT[number - 1]
        raw = json.dumps(arguments)
        yield ModelReply(
            text="",
            tool_calls=(ToolCall(id=f"call_{number}", name=name, arguments=arguments, raw_arguments=raw),),
            usage=usage,
        )


@dataclass(frozen=True)
class Measured:
    tokens: int
    masked: int
    masked_short: int
    result_sizes: tuple[int, ...]


async def session(minimum: int) -> Measured:
    options = ContextOptions()
    policy = ObservationMasking(
        options.observation_masking_protected_rounds,
        batch_rounds=options.observation_masking_batch_rounds,
        min_chars=minimum,
    )
    model = ExploringModel()
    backend = default_search_backend(())
    tools = ToolRegistry(
        [ReadFileTool(), ListDirectoryTool(), GlobFilesTool(backend), GrepFilesTool(backend), TodoWriteTool()]
    )
    loop = AgentLoop(
        client=model,
        toolset=tools,
        environment=ToolEnvironment(cwd=ROOT, data_dir=ROOT / ".hive-bench"),
        instructions="You are hive, a coding agent.",
        options=LoopOptions(max_turns=len(SCRIPT) + 5),
        context=policy,
    )
    result = await loop.run("Add a minimum result length to observation masking.")
    assert result.exit_reason == "completed", result
    counter = TokenCounter(MODEL)
    last = model.requests[-1].messages
    masked = [m for m in last if is_masked(m)]
    whole = {
        m.get("tool_call_id"): len(str(m.get("content"))) for m in loop.conversation.messages if m.get("role") == "tool"
    }
    short = sum(1 for m in masked if whole[m.get("tool_call_id")] < SHORT)
    return Measured(
        tokens=sum(counter.request(r.messages, r.tools) for r in model.requests),
        masked=len(masked),
        masked_short=short,
        result_sizes=tuple(whole.values()),
    )


def main() -> None:
    runs = {minimum: asyncio.run(session(minimum)) for minimum in MINIMUMS}
    unmasked = asyncio.run(session(10**9))
    sizes = sorted(runs[0].result_sizes)
    print(f"{len(SCRIPT)}-round exploration of hive's own repository, {len(sizes)} tool results:")
    print(
        f"  result sizes (characters): median {sizes[len(sizes) // 2]:,}, "
        f"{sum(1 for s in sizes if s < SHORT)} under {SHORT:,}, largest {sizes[-1]:,}"
    )
    print(f"  no masking: {unmasked.tokens:,} tokens sent over all requests")
    saving = unmasked.tokens - runs[0].tokens
    for minimum, run in runs.items():
        kept = (unmasked.tokens - run.tokens) / saving if saving else 1.0
        print(
            f"  min_chars {minimum:>5,}: {run.tokens:>9,} tokens sent, {100 * kept:5.1f}% of masking's saving kept, "
            f"{run.masked:>2} results masked ({run.masked_short} of them under {SHORT:,} characters)"
        )
    print("  goal: the default keeps at least 95% of the saving")


if __name__ == "__main__":
    main()
