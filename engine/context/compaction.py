"""Compaction into a task ledger: the oldest part of the history becomes one summary that keeps the task.

The ledger's anchor is written by hive, not by the model: the first request of the conversation and
the latest one, verbatim, so no summary can lose the goal. The model adds what was done (decisions,
files touched, open todos, errors seen), given the previous ledger too, so a ledger survives every
later compaction. The most recent messages are kept whole, and a tool round is never split.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from engine.context.overflow import window_after_refusal
from engine.context.policy import PreparedRequest
from engine.context.tokens import counter_for
from engine.context.window import Window, Windows
from engine.conversation import Conversation, is_summary
from engine.events import CompactionReason, ContextCompacted
from engine.model.completion import ModelCallFailed, complete
from engine.model.types import Message, ModelClient, ModelReply, ModelRequest

KEEP_MESSAGES = 6
"""Messages at the end of the history that are always kept whole."""
MAX_QUOTED = 4_000
"""Characters of a request quoted verbatim in the ledger (the rest is marked as cut)."""
MAX_SHOWN = 1_500
"""Characters of one message shown to the summariser."""
MIN_CHARS_PER_TOKEN = 1
"""A token is at least one character, so a request with fewer characters than the limit cannot reach it."""
TARGET_SHARE = 0.5
"""After a compaction the request should fill at most this share of the window (the kept messages are cut to fit)."""
LEDGER_HEADER = "Task ledger (kept by hive across compactions)"

SUMMARISER_INSTRUCTIONS = """You keep the task ledger of a coding agent whose conversation is too long for \
its context window. Write the part of the ledger that records the work so far, from the earlier \
ledger (if any) and the messages below. Use these headings, each with short bullet points:
Decisions made / Files touched (path: what changed) / Open todos / Errors seen and how they were handled / \
State of the work (what is done, what comes next).
Keep every fact a later step needs: exact paths, names, commands, numbers. Do not restate the requests; \
hive quotes them itself. Write only the ledger."""


class CompactionLimit:
    """When a request fills ``share`` of the model's known window (a guessed window waits for an overflow, unless
    ``at_guess``: then the guess counts as known)."""

    def __init__(
        self, model: Callable[[], str], share: float, windows: Windows | None = None, *, at_guess: bool = False
    ) -> None:
        self.model = model
        self.share = share
        self.windows = windows or Windows()
        self.at_guess = at_guess
        self._sizes: dict[int, tuple[Message, int]] = {}
        """The JSON size of each message of the last request, by identity (the message is kept, so its id is not reused)."""

    def reached(self, request: PreparedRequest) -> bool:
        """Whether ``request`` is at or over the limit."""
        model = self.model()
        window = self.windows.of(model)
        if not window.known and not self.at_guess:
            return False
        limit = window.tokens * self.share
        if self._characters(request) < limit * MIN_CHARS_PER_TOKEN:
            return False  # cannot be reached: spare loading the tokenizer (a fifth of a second)
        return counter_for(model).request(request.messages, request.tools) >= limit

    def learn(self, error: Exception, refused: PreparedRequest) -> Window:
        """The window after the provider refused ``refused`` as too long: the one it names, used from now on."""
        model = self.model()
        current = self.windows.of(model)
        refused_tokens = counter_for(model).request(refused.messages, refused.tools)
        return self.windows.learn(model, window_after_refusal(str(error), refused_tokens, current.tokens))

    def tail_fits(self, request: PreparedRequest) -> Callable[[Sequence[Message]], bool]:
        """Whether messages kept whole by a compaction of ``request`` leave it within ``TARGET_SHARE`` of the window.

        The system prompt and the tools stay in every request, so they come off the share first.
        """
        model = self.model()
        counter = counter_for(model)
        fixed = counter.request([m for m in request.messages if m.get("role") == "system"], request.tools)
        budget = self.windows.of(model).tokens * TARGET_SHARE - fixed
        return lambda kept: counter.messages(kept) <= budget

    def _characters(self, request: PreparedRequest) -> int:
        """The request's size in JSON; messages seen in the last request are not encoded again.

        Every request repeats the history before it, and the history's messages are never rewritten:
        encoding each of them before every model call made a long session's calls ever slower.
        """
        sizes: dict[int, tuple[Message, int]] = {}
        total = len(json.dumps(request.tools))
        for message in request.messages:
            known = self._sizes.get(id(message))
            size = known[1] if known is not None and known[0] is message else len(json.dumps(message, default=str))
            sizes[id(message)] = (message, size)
            total += size
        self._sizes = sizes
        return total


class Compactor:
    """Summarises the oldest part of a conversation with the agent's model and records the compaction.

    ``client`` gives the model client at the time of the compaction (the agent's may be switched).
    """

    def __init__(self, client: Callable[[], ModelClient], keep_messages: int = KEEP_MESSAGES) -> None:
        self.client = client
        self.keep_messages = keep_messages

    async def compact(
        self,
        conversation: Conversation,
        reason: CompactionReason,
        focus: str = "",
        fits: Callable[[Sequence[Message]], bool] | None = None,
    ) -> ContextCompacted | None:
        """Compact all but the latest messages; None if nothing is old enough.

        ``focus`` says what the ledger should dwell on; ``fits`` judges the messages kept whole, and
        fewer are kept (down to none) until it agrees.
        """
        messages = conversation.messages
        earlier = conversation.compactions[-1].through if conversation.compactions else 0
        through = cut_point(messages, self.keep_messages)
        if fits is not None:
            through = fitting_cut_point(messages, max(through, earlier), fits)
        if through <= earlier:
            return None
        previous = conversation.view()[0] if conversation.compactions else None
        reply = await self._summarise(messages[earlier:through], previous, focus)
        work = reply.text.strip() if reply is not None and reply.text.strip() else "(no summary was written)"
        conversation.compact(through, ledger(messages, work), reason)
        return ContextCompacted(
            reason=reason,
            summarised_messages=through,
            kept_messages=len(messages) - through,
            usage=reply.usage if reply is not None else None,
        )

    async def _summarise(self, old: Sequence[Message], previous: Message | None, focus: str) -> ModelReply | None:
        parts = [f"The person asks the ledger to dwell on: {focus}"] if focus else []
        if previous is not None:
            parts.append(f"Earlier ledger:\n{previous.get('content')}")
        parts.append("Messages to fold into the ledger:\n" + "\n".join(transcript_line(m) for m in old))
        request = ModelRequest(
            messages=(
                {"role": "system", "content": SUMMARISER_INSTRUCTIONS},
                {"role": "user", "content": "\n\n".join(parts)},
            )
        )
        try:
            return await complete(self.client(), request)
        except ModelCallFailed as failed:
            if failed.kind == "provider":
                raise
            return failed.reply  # a refused, empty or cut summary is kept as it is; no reply: the ledger says so


def cut_point(messages: Sequence[Message], keep: int) -> int:
    """The number of messages to compact: all but the last ``keep``, moved back so no tool round is split."""
    through = max(0, len(messages) - keep)
    while through > 0 and messages[through].get("role") == "tool":
        through -= 1
    return through


def fitting_cut_point(messages: Sequence[Message], through: int, fits: Callable[[Sequence[Message]], bool]) -> int:
    """``through`` moved later (no tool round split) until the messages after it fit; all of them at worst."""
    while through < len(messages) and not fits(messages[through:]):
        through += 1
        while through < len(messages) and messages[through].get("role") == "tool":
            through += 1
    return through


def ledger(messages: Sequence[Message], work: str) -> str:
    """The ledger text: the first and the latest request verbatim, then the model's record of the work."""
    requests = [m for m in messages if m.get("role") == "user" and not is_summary(m)]
    first = _text_of(requests[0]) if requests else ""
    latest = _text_of(requests[-1]) if requests else ""
    lines = [LEDGER_HEADER, "", "Goal (the first request, verbatim):", _quoted(first)]
    if latest != first:
        lines += ["", "Latest request (verbatim):", _quoted(latest)]
    return "\n".join([*lines, "", "Work so far:", work])


def transcript_line(message: Message) -> str:
    """One message as the summariser reads it (long contents cut)."""
    role = str(message.get("role"))
    text = _text_of(message)
    calls = message.get("tool_calls") or ()
    for call in calls:
        function = call.get("function") or {}
        text += f"\n[calls {function.get('name')} {function.get('arguments') or '{}'}]"
    if len(text) > MAX_SHOWN:
        text = text[:MAX_SHOWN] + f" … [{len(text) - MAX_SHOWN:,} more characters]"
    return f"{role}: {text}"


def _text_of(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return "" if content is None else json.dumps(content)


def _quoted(text: str) -> str:
    if len(text) > MAX_QUOTED:
        text = text[:MAX_QUOTED] + f" … [{len(text) - MAX_QUOTED:,} characters cut]"
    return "\n".join(f"> {line}" for line in text.splitlines() or [""])
