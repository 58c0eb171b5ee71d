"""One question to the model, with no tools: the planner's and the evaluator's calls."""

from __future__ import annotations

from engine.model.completion import ModelCallFailed, complete
from engine.model.types import ModelClient, ModelReply, ModelRequest


async def ask_model(client: ModelClient, system: str, user: str) -> ModelReply:
    """The model's reply to ``user`` under the ``system`` instructions.

    A failed call raises ``ModelCallFailed`` (a ``RunError``); a refused, empty or cut reply is returned
    as it is, and the planner and the judge read what they can of it.
    """
    request = ModelRequest(messages=({"role": "system", "content": system}, {"role": "user", "content": user}))
    try:
        return await complete(client, request)
    except ModelCallFailed as failed:
        if failed.reply is None:
            raise
        return failed.reply
