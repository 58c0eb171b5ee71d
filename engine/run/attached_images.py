"""Images in the conversation: a prompt's attachments, and the images tool calls return.

The OpenAI chat format takes only text in a ``tool`` message, so a tool's images ride in a user message
right after the round's results (``TOOL_IMAGES_HEADER`` marks it as the tools', not the person's). A model
that does not take images gets none: its tool result says so instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.conversation import TOOL_IMAGES_HEADER
from engine.events import ToolOutcome
from engine.model.types import Message
from engine.model.vision import accepts_images, no_vision_message


def user_content(prompt: str, images: Sequence[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A user message's content: the prompt alone, or a text part followed by the image parts."""
    if not images:
        return prompt
    return [{"type": "text", "text": prompt}, *images]


def tool_output(outcome: ToolOutcome, model: str, vision: Mapping[str, bool]) -> str:
    """What the tool message says: the output, and where its images went (or why they did not)."""
    if not outcome.images:
        return outcome.output
    count = len(outcome.images)
    if accepts_images(model, vision):
        return f"{outcome.output}\n(The image{'s follow' if count > 1 else ' follows'} in the next message.)"
    return f"{outcome.output}\n(The image was not sent: {no_vision_message(model)}.)"


def round_images(outcomes: Sequence[ToolOutcome], model: str, vision: Mapping[str, bool]) -> Message | None:
    """The user message carrying a round's images, or None when there are none (or the model takes none)."""
    images = [image for outcome in outcomes for image in outcome.images]
    if not images or not accepts_images(model, vision):
        return None
    return {"role": "user", "content": [{"type": "text", "text": TOOL_IMAGES_HEADER}, *images]}


def round_messages(
    outcomes: Sequence[ToolOutcome], model: str, vision: Mapping[str, bool], *, pending: bool
) -> list[tuple[Message, bool | None]]:
    """A round's messages for the history, each with whether its call worked: the results in order, then the
    message carrying their images (none while host-run calls still wait for their results)."""
    messages: list[tuple[Message, bool | None]] = [
        ({"role": "tool", "tool_call_id": o.call.id, "content": tool_output(o, model, vision)}, o.success)
        for o in outcomes
    ]
    images = None if pending else round_images(outcomes, model, vision)
    if images is not None:
        messages.append((images, None))
    return messages
