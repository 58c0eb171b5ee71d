"""The lines a program writes to ``hive run --input-format stream-json``, parsed one at a time.

Three shapes are understood: hive's ``{"type": "user_message", "text": ...}``, Claude Code's
``{"type": "user", "message": {"role": "user", "content": ...}}`` (a string, or a list of text blocks), and an
answer to an approval question, ``{"type": "approval", "request_id": ..., "decision": "allow" | "deny"}``.
Anything else is an ``InputProblem`` that says what is wrong, never an exception.
"""

from __future__ import annotations

import json
from typing import Any

from msgspec import Struct

DECISIONS = {"allow": True, "deny": False}


class UserMessage(Struct, frozen=True, kw_only=True):
    """The next message of the conversation."""

    text: str
    line: int


class ApprovalAnswer(Struct, frozen=True, kw_only=True):
    """The program's answer to one ``approval_requested`` question."""

    request_id: str
    allowed: bool
    reason: str
    line: int


class InputProblem(Struct, frozen=True, kw_only=True):
    """A line that could not be taken, and why."""

    message: str
    line: int


InputLine = UserMessage | ApprovalAnswer | InputProblem


def parse_line(raw: bytes, number: int) -> InputLine | None:
    """The line ``number`` of stdin, parsed; None for a blank line."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return InputProblem(message="the line is not UTF-8 text", line=number)
    if not text.strip():
        return None
    try:
        record = json.loads(text)
    except ValueError as error:
        return InputProblem(message=f"the line is not JSON ({error})", line=number)
    if not isinstance(record, dict):
        return InputProblem(message="the line is not a JSON object", line=number)
    return _parse_record(record, number)


def _parse_record(record: dict[str, Any], number: int) -> InputLine:
    kind = record.get("type")
    if kind == "user_message":
        return _user_message(record.get("text"), number, where='"text"')
    if kind == "user":
        message = record.get("message")
        if not isinstance(message, dict) or message.get("role", "user") != "user":
            return InputProblem(message='a "user" line needs "message": {"role": "user", "content": ...}', line=number)
        return _user_message(_content_text(message.get("content")), number, where='"message"."content"')
    if kind == "approval":
        return _approval(record, number)
    return InputProblem(
        message=f'unknown "type" {json.dumps(kind)}: expected "user_message", "user" or "approval"', line=number
    )


def _user_message(text: object, number: int, *, where: str) -> InputLine:
    if not isinstance(text, str) or not text.strip():
        return InputProblem(message=f"{where} must be non-empty text", line=number)
    return UserMessage(text=text, line=number)


def _content_text(content: object) -> str | None:
    """Claude Code's content: a string, or a list of blocks of which only text blocks are taken."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [block.get("text") for block in content if isinstance(block, dict) and block.get("type") == "text"]
    if len(texts) != len(content) or not all(isinstance(t, str) for t in texts):
        return None  # an image or a tool result cannot be taken: refused whole rather than sent in part
    return "\n\n".join(str(t) for t in texts)


def _approval(record: dict[str, Any], number: int) -> InputLine:
    request_id, decision, reason = record.get("request_id"), record.get("decision"), record.get("reason", "")
    if not isinstance(request_id, str) or not request_id:
        return InputProblem(message='an "approval" line needs the "request_id" it answers', line=number)
    if decision not in DECISIONS:
        return InputProblem(message='an "approval" line\'s "decision" is "allow" or "deny"', line=number)
    if not isinstance(reason, str):
        return InputProblem(message='an "approval" line\'s "reason" is text', line=number)
    allowed = DECISIONS[decision]
    said = reason or ("allowed by the program driving hive" if allowed else "denied by the program driving hive")
    return ApprovalAnswer(request_id=request_id, allowed=allowed, reason=said, line=number)
