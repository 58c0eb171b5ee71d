"""Resuming a reply that was cut after output: what the history gains, and what the cut call cost.

The loop keeps the text that arrived as an assistant message, then adds a short user note that quotes
where the text stopped, and calls the model again; the new reply continues the cut one. The cut call
reported no usage (the usage chunk comes last), so its tokens are counted locally and marked estimated.
"""

from __future__ import annotations

from msgspec.structs import replace

from engine.context.estimated_usage import with_estimated_usage
from engine.context.tokens import counter_for
from engine.errors import ProviderError
from engine.events import Retrying
from engine.model.types import Message, ModelReply, ModelRequest
from engine.usage import Usage

QUOTED_CHARS = 200
"""How much of the cut text the note quotes (its end)."""


def cut_messages(text: str) -> tuple[Message, Message]:
    """The assistant message holding the cut text, and the note asking the model to go on from its end."""
    tail = text[-QUOTED_CHARS:]
    note = f"Your previous reply was cut off after: «{tail}». Continue exactly from there."
    return {"role": "assistant", "content": text}, {"role": "user", "content": note}


def cut_usage(request: ModelRequest, text: str, reasoning: str, model: str) -> Usage:
    """An estimate of what the cut call cost: the request it answered and the output that arrived."""
    estimated = with_estimated_usage(ModelReply(text=text, reasoning=reasoning), request, counter_for(model))
    return replace(estimated.usage, calls=1)


def resumed_event(error: ProviderError, attempt: int, agent: str) -> Retrying:
    """The event announcing the ``attempt``-th resume of ``agent``'s run after ``error`` cut a reply."""
    message = f"{error}; resuming where it stopped"
    return Retrying(category=error.category, message=message, attempt=attempt, delay_s=0.0, resumed=True, agent=agent)
