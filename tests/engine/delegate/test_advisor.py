"""The advisor tool against the scripted server: offered when configured, sent the transcript, counted and capped."""

from __future__ import annotations

from pathlib import Path

from engine.delegate.advisor import REVIEWER_INSTRUCTIONS
from tests.support.delegation import config_in, offered, open_in, run, write
from tests.support.llm_server import LLMServer, Usage, auth_error, call, text, tool_calls

ADVISOR = "advisor:\n  model: openai/strong-model\n  max_calls: 2\n"


def test_no_advisor_is_offered_without_an_advisor_model(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("hi"))
    run(open_in(config_in(llm_server.base_url, tmp_path)), "go")
    assert "advisor" not in offered(llm_server.chat_requests[0].json)


def test_the_advisor_reviews_the_transcript_with_its_own_model_and_no_tools(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write(tmp_path / "notes.md", "the notes\n")
    llm_server.script(
        tool_calls(call("read_file", {"path": "notes.md"})),
        tool_calls(call("advisor")),
        text("Looks right; run the tests before finishing."),
        text("done"),
    )
    _, result = run(open_in(config_in(llm_server.base_url, tmp_path, ADVISOR)), "summarise notes.md")

    parent = llm_server.chat_requests[0].json
    advisor = llm_server.chat_requests[2].json
    assert "advisor" in offered(parent)
    assert "before committing to an approach" in next(
        t["function"]["description"] for t in parent["tools"] if t["function"]["name"] == "advisor"
    )
    assert advisor["model"] == "strong-model" and not advisor.get("tools")
    assert advisor["messages"][0] == {"role": "system", "content": REVIEWER_INSTRUCTIONS}
    transcript = advisor["messages"][1]["content"]
    assert "user: summarise notes.md" in transcript and "[calls read_file" in transcript
    assert "tool: " in transcript and "the notes" in transcript
    assert llm_server.chat_requests[3].json["messages"][-1]["content"] == "Looks right; run the tests before finishing."
    assert result.text == "done"


def test_advisor_calls_are_counted_capped_at_max_calls_and_their_usage_accounted(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    parent_usage = Usage(prompt_tokens=10, completion_tokens=1)
    advice_usage = Usage(prompt_tokens=100, completion_tokens=30)
    llm_server.script(
        tool_calls(call("advisor"), usage=parent_usage),
        text("advice one", usage=advice_usage),
        tool_calls(call("advisor"), usage=parent_usage),
        text("advice two", usage=advice_usage),
        tool_calls(call("advisor"), usage=parent_usage),
        text("done", usage=parent_usage),
    )
    session = open_in(config_in(llm_server.base_url, tmp_path, ADVISOR))
    _, result = run(session, "go")

    models = [r.json["model"] for r in llm_server.chat_requests]
    assert models.count("strong-model") == 2 and len(models) == 6
    outcomes = result.tool_outcomes
    assert [o.output for o in outcomes[:2]] == ["advice one", "advice two"]
    assert outcomes[2].success is False and "advisor.max_calls" in outcomes[2].output
    assert (session.usage.prompt_tokens, session.usage.completion_tokens, session.usage.calls) == (240, 64, 6)
    assert result.report is not None
    assert [c.usage.total_tokens for c in result.report.tool_calls] == [130, 130, None]
    assert result.report.total.total_tokens == session.usage.total_tokens


def test_an_advisor_that_cannot_be_reached_is_a_failed_tool_call_and_costs_nothing(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    parent_usage = Usage(prompt_tokens=10, completion_tokens=1)
    llm_server.script(tool_calls(call("advisor"), usage=parent_usage), auth_error(), text("done", usage=parent_usage))
    session = open_in(config_in(llm_server.base_url, tmp_path, ADVISOR))
    _, result = run(session, "go")

    outcome = result.tool_outcomes[0]
    assert outcome.success is False and outcome.output.startswith("The advisor could not be consulted: ")
    assert "Incorrect API key provided" in outcome.output
    assert result.text == "done" and (session.usage.prompt_tokens, session.usage.calls) == (20, 2)


def test_an_empty_review_says_so_and_its_cost_still_counts(llm_server: LLMServer, tmp_path: Path) -> None:
    parent_usage = Usage(prompt_tokens=10, completion_tokens=1)
    llm_server.script(
        tool_calls(call("advisor"), usage=parent_usage),
        text("", usage=Usage(prompt_tokens=100, completion_tokens=0)),
        text("done", usage=parent_usage),
    )
    session = open_in(config_in(llm_server.base_url, tmp_path, ADVISOR))
    _, result = run(session, "go")

    assert result.tool_outcomes[0].output == "(the advisor gave no review)"
    assert (session.usage.prompt_tokens, session.usage.calls) == (120, 3)


def test_the_advisor_model_has_its_line_in_the_usage_by_model(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(
        tool_calls(call("advisor"), usage=Usage(prompt_tokens=10, completion_tokens=1)),
        text("advice", usage=Usage(prompt_tokens=100, completion_tokens=30)),
        text("done", usage=Usage(prompt_tokens=20, completion_tokens=2)),
    )
    _, result = run(open_in(config_in(llm_server.base_url, tmp_path, ADVISOR)), "go")

    assert result.report is not None
    by_model = {model: usage.total_tokens for model, usage in result.report.by_model}
    assert by_model == {"openai/test-model": 33, "openai/strong-model": 130}
    assert sum(by_model.values()) == result.report.total.total_tokens
