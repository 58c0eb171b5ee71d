"""Replies cut before their end: what the history gains, and what the cut call cost.

Cut by the provider (the connection broke after output): the loop keeps the text that arrived as an
assistant message, then adds a short user note that quotes where the text stopped, and calls the model
again; the new reply continues the cut one. Cut by the person (Ctrl-C): the text that arrived stays as
the assistant's reply, marked as cancelled, so the next request follows an answered one and the model
does not take up the cancelled request again. Either way the cut call reported no usage (the usage
chunk comes last), so its tokens are counted locally and marked estimated.
"""

from __future__ import annotations

from msgspec.structs import replace

from engine.context.estimated_usage import with_estimated_usage
from engine.context.tokens import counter_for
from engine.conversation import Conversation
from engine.errors import ProviderError
from engine.events import Retrying
from engine.model.types import Message, ModelReply, ModelRequest
from engine.usage import Usage

QUOTED_CHARS = 200
"""How much of the cut text the note quotes (its end)."""
CANCELLED_MARK = "[Cancelled by the user: this reply stopped here, unfinished.]"
CANCELLED_BEFORE_REPLY = "[Cancelled by the user before the reply began.]"


def cut_messages(text: str) -> tuple[Message, Message]:
    """The assistant message holding the cut text, and the note asking the model to go on from its end."""
    tail = text[-QUOTED_CHARS:]
    note = f"Your previous reply was cut off after: «{tail}». Continue exactly from there."
    return {"role": "assistant", "content": text}, {"role": "user", "content": note}


def close_cancelled_request(conversation: Conversation, text: str) -> None:
    """After a cancellation: a history that ends with the user's request gets the reply that was cut.

    ``text`` is what arrived of it (maybe nothing); it is kept with a mark saying the person cancelled it.
    """
    last = conversation.messages[-1:]
    if last and last[0].get("role") == "user":
        content = f"{text.rstrip()}\n\n{CANCELLED_MARK}" if text.strip() else CANCELLED_BEFORE_REPLY
        conversation.append({"role": "assistant", "content": content})


def cut_usage(request: ModelRequest, text: str, reasoning: str, model: str) -> Usage:
    """An estimate of what the cut call cost: the request it answered and the output that arrived."""
    estimated = with_estimated_usage(ModelReply(text=text, reasoning=reasoning), request, counter_for(model))
    return replace(estimated.usage, calls=1)


def resumed_event(error: ProviderError, attempt: int, agent: str) -> Retrying:
    """The event announcing the ``attempt``-th resume of ``agent``'s run after ``error`` cut a reply."""
    message = f"{error}; resuming where it stopped"
    return Retrying(category=error.category, message=message, attempt=attempt, delay_s=0.0, resumed=True, agent=agent)


def resume_after_cut(conversation: Conversation, error: ProviderError, text: str, attempt: int, agent: str) -> Retrying:
    """Keep the cut ``text`` in the history with a note saying where it stopped; the event announcing the resume."""
    if text:
        for cut in cut_messages(text):
            conversation.append(cut)
    return resumed_event(error, attempt, agent)
