"""The stdin lines of `hive run --input-format stream-json`, parsed: each shape taken, anything else explained."""

from __future__ import annotations

import json

import pytest

from hive_cli.headless.input_lines import ApprovalAnswer, InputProblem, UserMessage, parse_line


def line(record: object) -> bytes:
    return (json.dumps(record) + "\n").encode()


def test_both_message_shapes_and_an_approval_are_taken() -> None:
    assert parse_line(line({"type": "user_message", "text": "hi"}), 1) == UserMessage(text="hi", line=1)
    blocks = [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]
    claude = {"type": "user", "message": {"role": "user", "content": blocks}}
    assert parse_line(line(claude), 2) == UserMessage(text="a\n\nb", line=2)
    answer = parse_line(line({"type": "approval", "request_id": "r1", "decision": "deny"}), 3)
    assert isinstance(answer, ApprovalAnswer) and answer.allowed is False and "denied" in answer.reason
    assert parse_line(b"   \n", 4) is None


@pytest.mark.parametrize(
    ("raw", "said"),
    [
        (b"\xff\xfe\n", "not UTF-8"),
        (b"[1]\n", "not a JSON object"),
        (line({"type": "user", "message": {"role": "user", "content": [{"type": "image"}]}}), '"content" must be'),
        (line({"type": "user", "message": {"role": "assistant", "content": "x"}}), '"role": "user"'),
        (line({"type": "user_message", "text": ""}), '"text" must be non-empty'),
        (line({"type": "approval", "request_id": "r", "decision": "maybe"}), '"allow" or "deny"'),
        (line({"type": "approval", "decision": "allow"}), '"request_id"'),
        (line({"type": "approval", "request_id": "r", "decision": "allow", "reason": 3}), '"reason" is text'),
    ],
)
def test_a_line_that_cannot_be_taken_says_why(raw: bytes, said: str) -> None:
    problem = parse_line(raw, 7)
    assert isinstance(problem, InputProblem) and problem.line == 7
    assert said in problem.message
