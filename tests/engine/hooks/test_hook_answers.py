"""What a hook's exit status and output mean, and which tools a matcher picks."""

from __future__ import annotations

import pytest

from engine.config.validation import Invalid, convert
from engine.hooks.options import HookSpec
from engine.hooks.runner import HookOutcome, answer
from engine.hooks.toolset import pre_tool_verdict

HOOK = HookSpec(event="pre_tool", command="check")


def test_a_matcher_is_a_list_of_tool_name_globs() -> None:
    hook = HookSpec(event="pre_tool", command="x", matcher="write_file | mcp__db__*")
    assert [hook.matches(n) for n in ("write_file", "mcp__db__query", "edit_file")] == [True, True, False]
    assert HookSpec(event="post_tool", command="x").matches("anything")


def test_a_matcher_on_an_event_without_a_tool_is_an_error() -> None:
    with pytest.raises(Invalid, match="matcher is for pre_tool and post_tool hooks"):
        convert({"event": "stop", "command": "x", "matcher": "*"}, HookSpec)


@pytest.mark.parametrize(
    ("status", "stdout", "stderr", "expected"),
    [
        (0, "", "", HookOutcome(hook=HOOK)),
        (0, "reformatted 2 files\n", "", HookOutcome(hook=HOOK)),
        (2, "", "not on Fridays\n", HookOutcome(hook=HOOK, decision="deny", reason="not on Fridays")),
        (0, '{"decision": "block", "reason": "r"}', "", HookOutcome(hook=HOOK, decision="deny", reason="r")),
        (0, '{"note": "n", "continue": true}', "", HookOutcome(hook=HOOK, note="n", go_on=True)),
        (1, "", "boom\n", HookOutcome(hook=HOOK, failure="exited with status 1: boom")),
        (
            0,
            '{"decision": "maybe"}',
            "",
            HookOutcome(hook=HOOK, failure="unknown decision 'maybe' (allow, deny, block or ask)"),
        ),
    ],
)
def test_exit_status_and_json_make_the_answer(status: int, stdout: str, stderr: str, expected: HookOutcome) -> None:
    assert answer(HOOK, status, stdout, stderr) == expected


def test_output_that_starts_like_json_but_is_not_is_a_failure() -> None:
    outcome = answer(HOOK, 0, '{"decision": ', "")
    assert outcome.failure is not None and outcome.failure.startswith("printed JSON that does not parse")


def test_for_pre_tool_a_failure_denies_before_a_later_allow_or_ask() -> None:
    outcomes = [HookOutcome(hook=HOOK, failure="timed out after 1 s"), HookOutcome(hook=HOOK, decision="ask")]
    verdict = pre_tool_verdict(outcomes)
    assert verdict.verdict == "deny" and "timed out after 1 s" in verdict.reason
    assert pre_tool_verdict([HookOutcome(hook=HOOK, decision="ask"), HookOutcome(hook=HOOK)]).verdict == "ask"
    assert pre_tool_verdict([HookOutcome(hook=HOOK, decision="allow")]).verdict == "allow"
