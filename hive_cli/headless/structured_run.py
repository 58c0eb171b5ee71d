"""A run whose final answer must satisfy ``--output-schema``: one more try with the validation error, then a status."""

from __future__ import annotations

from typing import Any

from engine.events import RunFinished, RunResult
from engine.session import Session
from hive_cli.headless.output_schema import EXIT_SCHEMA_MISMATCH, SCHEMA_MISMATCH, OutputSchema
from hive_cli.output import Renderer
from hive_cli.output.serialize import usage_report

REPAIRS = 1
"""How many times an invalid answer is put back to the model before the run fails."""


class StructuredOutcome:
    """What a structured run ended with: the last run's result, the fields the output adds, the exit status."""

    def __init__(self, result: RunResult, extra: dict[str, Any], status: int | None) -> None:
        self.result = result
        self.extra = extra
        self.status = status
        """``EXIT_SCHEMA_MISMATCH``, or None when the run's own exit reason decides."""


async def run_events(session: Session, prompt: str, renderer: Renderer) -> RunResult:
    """Run ``prompt`` in the session, showing every event; the run's result (the renderer is not finished)."""
    result: RunResult | None = None
    async for event in session.run_streaming(prompt):
        if isinstance(event, RunFinished):
            result = event.result
        renderer.handle(event)
    assert result is not None
    return result


async def run_structured(session: Session, task: str, schema: OutputSchema, renderer: Renderer) -> StructuredOutcome:
    """Run ``task`` with the schema's instructions; put an invalid answer back once; judge the last answer."""
    result = await run_events(session, f"{task}\n\n{schema.instructions()}", renderer)
    earlier: list[RunResult] = []
    checked = schema.check(result.text)
    while result.exit_reason == "completed" and not checked.valid and len(earlier) < REPAIRS:
        assert checked.problem is not None
        earlier.append(result)
        result = await run_events(session, schema.repair_request(checked.problem), renderer)
        checked = schema.check(result.text)
    extra: dict[str, Any] = {
        "structured": checked.value if checked.valid else None,
        "earlier_attempts": [usage_report(r, 0.0, session.model) for r in earlier],
    }
    if result.exit_reason != "completed" or checked.valid:
        return StructuredOutcome(result, extra, None)
    extra |= {
        "exit_reason": SCHEMA_MISMATCH,
        "error": f"the final answer is not valid against --output-schema {schema.path}: {checked.problem}",
        "fix": "ask for the answer more plainly, loosen the schema, or use a model that follows it",
    }
    return StructuredOutcome(result, extra, EXIT_SCHEMA_MISMATCH)
