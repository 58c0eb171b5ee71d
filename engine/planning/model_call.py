"""One question to the model, with no tools: the planner's and the evaluator's calls."""

from __future__ import annotations

from contextlib import aclosing

from engine.errors import RunError
from engine.model.types import ModelClient, ModelReply, ModelRequest


async def ask_model(client: ModelClient, system: str, user: str) -> ModelReply:
    """The model's reply to ``user`` under the ``system`` instructions."""
    request = ModelRequest(messages=({"role": "system", "content": system}, {"role": "user", "content": user}))
    async with aclosing(client.stream(request)) as items:
        async for item in items:
            if isinstance(item, ModelReply):
                return item
    raise RunError("the model stream ended without a reply")
