"""A scripted research model: the scripted model server answers each research stage from its own list.

Every research prompt's system message starts with ``[hive research stage: NAME]``; the script reads
that tag and pops the stage's next reply (the last one repeats). Every reply reports the same usage,
so a test can check the run's totals against the number of calls.

    script = ResearchScript(plans=['["glacier retreat"]'], judges=['{"score": 0.9, "gaps": []}'],
                            report="The glacier retreated 1.8 km [1].")
    script.install(llm_server)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.support.llm_server import LLMServer, Reply, Usage, text

FIXTURE_DOCS = Path(__file__).resolve().parent.parent / "fixtures" / "research_docs"
PROMPT_TOKENS = 100
COMPLETION_TOKENS = 20
_STAGE = re.compile(r"\[hive research stage: (\w+)\]")


def stage_of(body: dict[str, Any]) -> str:
    """The research stage a chat request belongs to ('' when it is not a research request)."""
    for message in body.get("messages", []):
        if message.get("role") == "system":
            found = _STAGE.search(str(message.get("content", "")))
            if found:
                return found.group(1)
    return ""


def source_text(body: dict[str, Any]) -> str:
    """The user message of a request (for the notes stage: the question and the source text)."""
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    return str(users[-1].get("content", "")) if users else ""


def first_sentence_note(body: dict[str, Any]) -> str:
    """A note that repeats the source's first sentence after its title (what a faithful reader would keep)."""
    content = source_text(body)
    inside = content.split("<source_text>", 1)[-1].split("</source_text>", 1)[0]
    lines = [line.strip("# ").strip() for line in inside.strip().splitlines() if line.strip()]
    return " ".join(lines[:3])[:300] or "Nothing relevant."


@dataclass
class ResearchScript:
    """Replies per stage; ``install`` puts enough of them on the server for a whole run."""

    plans: Sequence[str] = ('["Tessel Glacier retreat", "Tessel Glacier ice cores"]',)
    judges: Sequence[str] = ('{"score": 0.9, "gaps": [], "next_queries": []}',)
    report: str = "The Tessel Glacier has retreated 1.8 kilometres since 1962 [1]."
    note: Callable[[dict[str, Any]], str] = first_sentence_note
    chat: str = "This is not a research request."
    """The answer to any other request (a follow-up turn in the REPL)."""
    seen: Counter[str] = field(default_factory=Counter)

    def __call__(self, body: dict[str, Any]) -> Reply:
        stage = stage_of(body)
        number = self.seen[stage]
        self.seen[stage] += 1
        if stage == "plan":
            answer = _nth(self.plans, number)
        elif stage == "judge":
            answer = _nth(self.judges, number)
        elif stage == "notes":
            answer = self.note(body)
        elif stage == "write":
            answer = self.report
        else:
            answer = self.chat
        return text(answer, usage=Usage(prompt_tokens=PROMPT_TOKENS, completion_tokens=COMPLETION_TOKENS))

    def install(self, server: LLMServer, replies: int = 80) -> ResearchScript:
        """Queue ``replies`` calls of this script on ``server``."""
        server.script(*([self] * replies))
        return self

    @property
    def calls(self) -> int:
        """Model calls answered so far."""
        return sum(self.seen.values())


def _nth(replies: Sequence[str], number: int) -> str:
    return replies[min(number, len(replies) - 1)]


def research_args(server: LLMServer, workdir: Path, docs: Path = FIXTURE_DOCS) -> list[str]:
    """The flags that point ``hive research`` at ``server`` and search ``docs``."""
    return [
        "--model",
        "openai/test-model",
        "--api-base",
        server.base_url,
        "--api-key",
        "sk-test",
        "-C",
        str(workdir),
        "--provider",
        "docs",
        "--docs",
        str(docs),
    ]
