"""Goal reminders at the end of long turns, and where cache breakpoints go."""

from __future__ import annotations

from engine.context.caching import CACHE_POINT, PromptCaching, takes_breakpoints
from engine.context.masking import ObservationMasking, is_masked
from engine.context.policy import PassThrough
from engine.context.reminder import GoalReminder, goal_reminder, is_reminder
from engine.conversation import Compaction, summary_message
from engine.model.types import Message

REQUEST = "Fix the failing test in tests/test_parser.py without touching the public API."


def rounds(count: int, start: int = 0) -> list[Message]:
    history: list[Message] = []
    for i in range(start, start + count):
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}
        history += [{"role": "assistant", "content": None, "tool_calls": [call]}]
        history += [{"role": "tool", "tool_call_id": f"c{i}", "content": f"result {i}"}]
    return history


def test_a_turn_of_many_rounds_ends_each_request_with_the_request_verbatim() -> None:
    history: list[Message] = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "Hi."}]
    history += [{"role": "user", "content": REQUEST}, *rounds(10)]
    policy = GoalReminder(PassThrough(), lambda: history, after_rounds=10)
    sent = policy.prepare(history, ()).messages

    assert sent[:-1] == tuple(history)  # the history itself is untouched
    reminder = sent[-1]
    assert reminder["role"] == "user" and is_reminder(reminder)
    assert f"> {REQUEST}" in str(reminder["content"]) and "10 tool rounds" in str(reminder["content"])


def test_no_reminder_for_a_short_turn_an_answered_turn_or_when_switched_off() -> None:
    history: list[Message] = [{"role": "user", "content": REQUEST}, *rounds(9)]
    assert goal_reminder(history, 10) is None
    answered = [*history, *rounds(1, start=9), {"role": "assistant", "content": "Done."}]
    assert goal_reminder(answered, 10) is None
    assert GoalReminder(PassThrough(), lambda: answered, after_rounds=0).prepare(answered, ()).messages == tuple(
        answered
    )


def test_after_a_compaction_the_request_is_still_found_in_the_whole_history() -> None:
    history: list[Message] = [{"role": "user", "content": REQUEST}, *rounds(12)]
    view = [summary_message(Compaction(through=7, summary="ledger")), *history[7:]]
    sent = GoalReminder(PassThrough(), lambda: history, after_rounds=10).prepare(view, ()).messages
    assert f"> {REQUEST}" in str(sent[-1]["content"])


def test_breakpoints_on_the_last_tool_the_system_prompt_and_the_latest_two_messages() -> None:
    tools = [{"type": "function", "function": {"name": n, "parameters": {}}} for n in ("a", "b")]
    history: list[Message] = [
        {"role": "system", "content": "You are hive."},
        {"role": "user", "content": REQUEST},
        *rounds(3),
    ]
    sent = PromptCaching(PassThrough(), lambda: "anthropic/claude-sonnet-4-5").prepare(history, tools)

    assert [("cache_control" in tool) for tool in sent.tools] == [False, True]
    marked = [i for i, m in enumerate(sent.messages) if "cache_control" in str(m.get("content"))]
    assert marked == [0, 5, 7]  # the system prompt, then the latest two results
    assert sent.messages[7]["content"] == [{"type": "text", "text": "result 2", "cache_control": CACHE_POINT}]
    assert history[7]["content"] == "result 2"  # marked on copies
    plain = PromptCaching(PassThrough(), lambda: "openai/gpt-4o").prepare(history, tools)
    assert plain.messages == tuple(history) and plain.tools == tuple(tools)


def test_which_models_take_breakpoints() -> None:
    assert takes_breakpoints("anthropic/claude-haiku-4-5")
    assert takes_breakpoints("bedrock/anthropic.claude-3-5-sonnet-20240620-v1:0")
    assert takes_breakpoints("vertex_ai/claude-sonnet-4-5")
    assert not takes_breakpoints("openai/gpt-4o")
    assert not takes_breakpoints("bedrock/meta.llama3-70b")
    assert not takes_breakpoints("ollama/claude-lookalike")


def test_old_rounds_are_masked_in_batches_so_the_cached_prefix_holds_between_them() -> None:
    def masked_after(count: int) -> int:
        history: list[Message] = [{"role": "user", "content": REQUEST}, *rounds(count)]
        history = [m if m["role"] != "tool" else {**m, "content": "x" * 500} for m in history]
        sent = ObservationMasking(protected_rounds=10, batch_rounds=5).prepare(history, ()).messages
        return sum(is_masked(m) for m in sent)

    assert [masked_after(n) for n in (10, 14, 15, 19, 20, 26)] == [0, 0, 5, 5, 10, 15]
