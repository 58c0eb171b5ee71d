"""A session read back despite damage: only whole tool rounds, and the compactions that still fit.

A damaged line in a session file loses one record. When that record was a tool call or one of its
results, the round it belonged to is half there, and a model refuses a history with a result whose
call is missing or a call without its result followed by more conversation. So a round that lost a
part is dropped whole (the assistant message that asked and every result it got), as a cut reply is
kept whole or not at all (:mod:`engine.run.cut_replies`). A round still waiting at the very end is
kept: the host answers its calls as interrupted (``Conversation.answer_unanswered``).

A compaction names how many messages its summary stands for, counted in the conversation of the
process that wrote it; once messages are dropped it is counted again over the messages kept, and is
dropped itself when it no longer fits (it would start the rest of the history with a tool result).
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

from msgspec import Struct
from msgspec.structs import replace

from engine.conversation import Compaction
from engine.model.types import Message

Numbered = tuple[int, Message]
"""A message and its place in the conversation of the process that wrote it."""
SHOWN_LINES = 10


class Damage(Struct, frozen=True, kw_only=True):
    """What reading a session file skipped or dropped to keep the history valid."""

    lines: tuple[int, ...] = ()
    """The damaged lines (counted from 1), skipped."""
    header: bool = False
    """The first line, which says where and with which model the session began, could not be read."""
    rounds: int = 0
    """Tool rounds dropped because their call or one of their results was on a damaged line."""
    messages: int = 0
    """The intact messages of those rounds, dropped with them."""
    compactions: int = 0
    """Compactions dropped because they no longer fit the messages kept."""

    def __bool__(self) -> bool:
        return bool(self.lines or self.header or self.rounds or self.compactions)

    def describe(self, session_id: str) -> str:
        """One sentence for the person, e.g. "session X: skipped 2 damaged lines (lines 14, 15); ..." ("" when none)."""
        parts = [
            "its first line (where and with which model it began) is damaged" if self.header else "",
            _skipped_lines(self.lines),
            _counted(self.rounds, "tool round", "whose call or result was on a damaged line", self.messages),
            _counted(self.compactions, "compaction", "that no longer fits the messages kept"),
        ]
        said = "; ".join(part for part in parts if part)
        return f"session {session_id}: {said}; resumed from the records that were intact" if said else ""

    def merged(self, other: Damage) -> Damage:
        """This damage and ``other`` (found in a later part of the file) together."""
        return Damage(
            lines=self.lines + other.lines,
            header=self.header or other.header,
            rounds=self.rounds + other.rounds,
            messages=self.messages + other.messages,
            compactions=self.compactions + other.compactions,
        )


def whole_rounds(numbered: Sequence[Numbered]) -> tuple[list[Numbered], Damage]:
    """``numbered`` without the tool rounds that lost a part (a round still waiting at the end is kept)."""
    kept: list[Numbered] = []
    rounds = dropped = 0
    start = 0
    while start < len(numbered):
        end = _round_end(numbered, start)
        if _broken(numbered[start:end], at_end=end == len(numbered)):
            rounds, dropped = rounds + 1, dropped + end - start
        else:
            kept.extend(numbered[start:end])
        start = end
    return kept, Damage(rounds=rounds, messages=dropped)


def fitting_compactions(compactions: Sequence[Compaction], kept: Sequence[Numbered]) -> tuple[list[Compaction], int]:
    """``compactions`` counted over the messages ``kept``, and how many no longer fit (dropped)."""
    places = [place for place, _ in kept]
    fitting: list[Compaction] = []
    for compaction in compactions:
        through = bisect.bisect_left(places, compaction.through)  # the kept messages it stands for
        floor = fitting[-1].through if fitting else 0
        starts_with_result = through < len(kept) and kept[through][1].get("role") == "tool"
        if floor < through and not starts_with_result:
            fitting.append(replace(compaction, through=through))
    return fitting, len(compactions) - len(fitting)


def _round_end(numbered: Sequence[Numbered], start: int) -> int:
    """Past the round that starts at ``start``: an assistant's calls and the results after them, or results with no call."""
    first = numbered[start][1]
    end = start + 1
    if first.get("role") == "tool" or first.get("tool_calls"):
        while end < len(numbered) and numbered[end][1].get("role") == "tool":
            end += 1
    return end


def _broken(span: Sequence[Numbered], *, at_end: bool) -> bool:
    first = span[0][1]
    if first.get("role") == "tool":
        return True  # results whose call was lost
    if not first.get("tool_calls"):
        return False
    asked = [call["id"] for call in first["tool_calls"]]
    answered = [message.get("tool_call_id") for _, message in span[1:]]
    if len(set(answered)) != len(answered) or not set(answered) <= set(asked):
        return True
    return len(answered) < len(asked) and not at_end


def _skipped_lines(lines: tuple[int, ...]) -> str:
    if not lines:
        return ""
    shown = ", ".join(str(line) for line in lines[:SHOWN_LINES]) + (", ..." if len(lines) > SHOWN_LINES else "")
    if len(lines) == 1:
        return f"skipped 1 damaged line (line {shown})"
    return f"skipped {len(lines)} damaged lines (lines {shown})"


def _counted(count: int, thing: str, why: str, intact: int = 0) -> str:
    if not count:
        return ""
    whole = f", with {intact} intact message{'s' if intact > 1 else ''} of {'them' if count > 1 else 'it'}"
    return f"dropped {count} {thing}{'s' if count > 1 else ''} {why}{whole if intact else ''}"
