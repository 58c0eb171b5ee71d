"""The evaluator: did a step's run do the step? A heuristic check first; a model's judgement optionally after it.

The heuristic fails a step whose run did not complete, whose last tool round had a failed call, or
whose final text says the model could not do it. A ``ModelEvaluator`` then asks the model, for runs
the heuristic passed, whether the step is done.
"""

from __future__ import annotations

import re
from typing import Protocol

from msgspec import Struct

from engine.events import RunResult
from engine.model.types import ModelClient
from engine.planning.model_call import ask_model
from engine.usage import Usage

_GAVE_UP = re.compile(
    r"\b(?:I\s+(?:(?:still|really|just|simply)\s+)?"
    r"(?:could\s*n[o']t|cannot|can\s*n[o']t|was\s+(?:not|unable)\s+(?:able\s+)?to|am\s+unable\s+to|failed\s+to)"
    r"|unable\s+to\s+(?:complete|finish|do)|(?:step|task)\s+(?:failed|is\s+blocked))\b",
    re.I,
)
JUDGE_INSTRUCTIONS = """You check whether one step of a coding plan was done. You get the step and the \
assistant's report of its work. Answer with one line: "DONE" when the step was done, otherwise \
"NOT DONE: " and the reason in a few words."""
MAX_REPORT_CHARS = 4000


class StepVerdict(Struct, frozen=True, kw_only=True):
    """Whether a step is done, and why not."""

    ok: bool
    reason: str = ""
    usage: Usage | None = None
    """What a model's judgement cost (None for the heuristic)."""


def evaluate_run(result: RunResult) -> StepVerdict:
    """The heuristic verdict on a step's run (no model call)."""
    if result.exit_reason != "completed":
        detail = f": {result.error}" if result.error else ""
        return StepVerdict(ok=False, reason=f"the run ended with {result.exit_reason}{detail}")
    failed = _failed_calls(result)
    if failed:
        return StepVerdict(ok=False, reason=f"the last tool round failed: {', '.join(failed)}")
    said = _GAVE_UP.search(result.text)
    if said is not None:
        return StepVerdict(ok=False, reason=f'the model said "{_sentence_around(result.text, said.start())}"')
    return StepVerdict(ok=True)


def _failed_calls(result: RunResult) -> list[str]:
    """The calls that failed in the last round that ran tools (a later retry that worked clears them)."""
    rounds = [turn for turn in result.turns if turn.outcomes]
    if not rounds:
        return []
    return [outcome.call.name for outcome in rounds[-1].outcomes if outcome.success is False]


def _sentence_around(text: str, at: int, limit: int = 120) -> str:
    start = max(text.rfind(".", 0, at), text.rfind("\n", 0, at)) + 1
    ends = [i for i in (text.find(".", at), text.find("\n", at)) if i != -1]
    end = min(ends) if ends else len(text)
    return text[start:end].strip()[:limit]


class Evaluator(Protocol):
    """Judges whether a step's run did the step."""

    async def evaluate(self, step: str, result: RunResult) -> StepVerdict:
        """The verdict on ``step`` done by the run ``result``."""
        ...


class HeuristicEvaluator:
    """The heuristic check alone (no model call): the default."""

    async def evaluate(self, step: str, result: RunResult) -> StepVerdict:
        """The verdict of ``evaluate_run``."""
        return evaluate_run(result)


class ModelEvaluator:
    """The heuristic, then (for runs it passed) the model's judgement of the step's final report."""

    def __init__(self, client: ModelClient) -> None:
        self.client = client

    async def evaluate(self, step: str, result: RunResult) -> StepVerdict:
        """The verdict on ``step`` done by the run ``result``."""
        verdict = evaluate_run(result)
        if not verdict.ok:
            return verdict
        user = f"Step: {step}\n\nThe assistant's report:\n{result.text[-MAX_REPORT_CHARS:] or '(no text)'}"
        reply = await ask_model(self.client, JUDGE_INSTRUCTIONS, user)
        answer = reply.text.strip()
        if answer.upper().startswith("DONE"):
            return StepVerdict(ok=True, usage=reply.usage)
        reason = answer.partition(":")[2].strip() or answer or "the judge gave no answer"
        return StepVerdict(ok=False, reason=reason, usage=reply.usage)
