"""Delegation end to end: a session's model calls ``agent_{name}``, the child runs against the same scripted server."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.delegate.definitions import EXPLORE, READ_ONLY_TOOLS
from engine.events import ROOT_AGENT, Event, ModelTurnStarted, RunFinished, ToolCallFinished, ToolCallStarted
from engine.policy.gate import ApprovalRequest, Decision
from tests.support.agents import collect
from tests.support.delegation import Router, config_in, offered, open_in, run, write
from tests.support.llm_server import Completion, LLMServer, Reply, Usage, call, hang, text, tool_calls

TASK = "What does notes.md say?"


def delegate(name: str, task: str = TASK, **usage: int) -> Completion:
    return tool_calls(call(f"agent_{name}", {"task": task}), usage=Usage(**usage))


def test_a_parent_delegates_to_explore_which_reads_a_file_and_its_answer_comes_back(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write(tmp_path / "notes.md", "hello from the notes\n")
    llm_server.script(
        delegate("explore"),
        tool_calls(call("read_file", {"path": "notes.md"})),
        text("notes.md says hello"),
        text("It says hello."),
    )
    session = open_in(config_in(llm_server.base_url, tmp_path))
    events, result = run(session, "ask explore")

    parent, child_1, child_2, parent_2 = (r.json for r in llm_server.chat_requests)
    assert {"agent_explore", "agent_general"} <= set(offered(parent))
    assert offered(child_1) == [*READ_ONLY_TOOLS, "recall_result"]
    assert child_1["messages"][0]["content"].startswith(EXPLORE.prompt)
    assert child_1["messages"][1] == {"role": "user", "content": TASK}
    assert "hello from the notes" in child_2["messages"][-1]["content"]
    assert parent_2["messages"][-1]["content"] == "notes.md says hello"
    assert result.text == "It says hello."
    asyncio.run(session.close())


def test_the_childs_events_carry_its_name_and_nest_under_calling_explore_agent(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write(tmp_path / "notes.md", "hello\n")
    llm_server.script(
        delegate("explore"), tool_calls(call("read_file", {"path": "notes.md"})), text("hello"), text("done")
    )
    events, _ = run(open_in(config_in(llm_server.base_url, tmp_path)), "go")

    started = {e.call.name: e for e in events if isinstance(e, ToolCallStarted)}
    outer, inner = started["agent_explore"], started["read_file"]
    assert outer.agent == ROOT_AGENT and inner.agent == "explore"
    assert outer.scope is not None and inner.scope is not None
    assert outer.scope.label == "Calling explore Agent" and outer.scope.tool_kind == "agent"
    assert inner.scope.depth == 3  # below the child run's root, itself below the agent call
    child_turns = [e for e in events if isinstance(e, ModelTurnStarted) and e.agent == "explore"]
    assert len(child_turns) == 2 and all(
        t.scope and t.scope.parent_scope_id == outer.scope.scope_id for t in child_turns
    )
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [e.outcome.call.name for e in finished] == ["read_file", "agent_explore"]


def test_the_usage_rollup_equals_the_sum_of_the_childs_calls(llm_server: LLMServer, tmp_path: Path) -> None:
    write(tmp_path / "notes.md", "hello\n")
    llm_server.script(
        delegate("explore", prompt_tokens=100, completion_tokens=10),
        tool_calls(call("read_file", {"path": "notes.md"}), usage=Usage(prompt_tokens=50, completion_tokens=5)),
        text("hello", usage=Usage(prompt_tokens=70, completion_tokens=7)),
        text("done", usage=Usage(prompt_tokens=200, completion_tokens=20)),
    )
    session = open_in(config_in(llm_server.base_url, tmp_path))
    _, result = run(session, "go")

    assert result.report is not None
    (agent_call,) = result.report.tool_calls
    assert (agent_call.usage.prompt_tokens, agent_call.usage.completion_tokens, agent_call.usage.calls) == (120, 12, 2)
    assert agent_call.kind == "agent" and agent_call.source == "explore"
    total = (result.report.total.prompt_tokens, result.report.total.completion_tokens, result.report.total.calls)
    assert total == (420, 42, 4)
    assert (result.usage.total_tokens, result.usage.calls) == (462, 4)
    assert (session.usage.total_tokens, session.usage.calls) == (462, 4)


def test_a_project_agent_file_sets_tools_model_reasoning_and_a_turn_limit_that_marks_partial(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write(tmp_path / "a.txt", "a\n")
    write(
        tmp_path / ".ironhive" / "agents" / "reviewer.md",
        "---\nname: reviewer\ndescription: Reviews things.\ntools:\n  - read_file\nmodel: openai/strong-model\n"
        "max_tool_turns: 2\nreasoning: low\n---\nYou review.\n",
    )
    llm_server.script(
        delegate("reviewer", "review a.txt"),
        tool_calls(call("read_file", {"path": "a.txt"}), text="Looking at a.txt first."),
        tool_calls(call("read_file", {"path": "a.txt"})),
        text("done"),
    )
    _, result = run(open_in(config_in(llm_server.base_url, tmp_path)), "review")

    parent, child_1, child_2, parent_2 = (r.json for r in llm_server.chat_requests)
    assert "agent_reviewer" in offered(parent)
    assert offered(child_1) == ["read_file", "recall_result"]
    assert child_1["model"] == "strong-model" and child_1.get("reasoning_effort") == "low"
    assert child_1["messages"][0]["content"].startswith("You review.")
    answer = parent_2["messages"][-1]["content"]
    assert answer.startswith("[partial: the reviewer agent stopped at its limit of 2 tool turns")
    assert answer.endswith("Looking at a.txt first.")
    outcome = result.tool_outcomes[0]
    assert outcome.success is None


def test_a_child_at_the_depth_limit_is_offered_no_agents(llm_server: LLMServer, tmp_path: Path) -> None:
    router = Router(
        {
            "root": [delegate("general", "dig deeper"), text("all done")],
            "dig deeper": [delegate("general", "look around"), text("dug")],
            "look around": [text("looked")],
        }
    )
    llm_server.script(*router.replies())
    _, result = run(open_in(config_in(llm_server.base_url, tmp_path)), "go")  # default max_depth: 2

    assert router.order == ["root", "dig deeper", "look around", "dig deeper", "root"]
    by_agent = {key: offered(r.json) for key, r in zip(router.order, llm_server.chat_requests, strict=True)}
    assert "agent_general" in by_agent["dig deeper"] and "write_file" in by_agent["look around"]
    assert not [name for name in by_agent["look around"] if name.startswith("agent_")]
    assert result.text == "all done"


def test_max_depth_zero_offers_no_agents_and_one_keeps_them_from_children(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("alone"))
    run(open_in(config_in(llm_server.base_url, tmp_path / "zero", "delegation:\n  max_depth: 0\n")), "go")
    assert not [n for n in offered(llm_server.chat_requests[0].json) if n.startswith("agent_")]

    llm_server.script(delegate("general", "sub"), text("sub done"), text("done"))
    run(open_in(config_in(llm_server.base_url, tmp_path / "one", "delegation:\n  max_depth: 1\n")), "go")
    child = llm_server.chat_requests[2].json
    assert "write_file" in offered(child) and not [n for n in offered(child) if n.startswith("agent_")]


def test_with_max_concurrency_one_a_second_parallel_delegation_waits_for_the_first(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write(tmp_path / "a.txt", "a\n")
    both = tool_calls(call("agent_explore", {"task": "first"}), call("agent_explore", {"task": "second"}))
    router = Router(
        {
            "root": [both, text("both done")],
            "first": [tool_calls(call("read_file", {"path": "a.txt"})), text("first answer")],
            "second": [text("second answer")],
        }
    )
    llm_server.script(*router.replies())
    config = config_in(llm_server.base_url, tmp_path, "delegation:\n  max_concurrency: 1\n")
    _, result = run(open_in(config), "go")

    assert router.order == ["root", "first", "first", "second", "root"]
    assert [o.output for o in result.tool_outcomes] == ["first answer", "second answer"]


class RecordingApprover:
    def __init__(self) -> None:
        self.asked: list[str] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.asked.append(f"{request.agent}: {request.call.name}")
        return Decision(allowed=True)


def test_permissions_hold_inside_a_sub_agent_and_its_asks_reach_the_sessions_approver(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write(tmp_path / "secret.txt", "the password\n")
    write(
        tmp_path / ".ironhive" / "permissions.yaml",
        "permissions:\n  include_defaults: true\n  read:\n    - pattern: secret.txt\n      action: deny\n",
    )
    llm_server.script(
        delegate("general", "do it"),
        tool_calls(call("read_file", {"path": "secret.txt"}), call("write_file", {"path": "out.md", "content": "x"})),
        text("tried"),
        text("done"),
    )
    approver = RecordingApprover()
    events, _ = run(open_in(config_in(llm_server.base_url, tmp_path), approver), "go")

    results = {e.outcome.call.name: e.outcome for e in events if isinstance(e, ToolCallFinished)}
    assert results["read_file"].success is False and "the password" not in results["read_file"].output
    assert "the password" not in str(llm_server.chat_requests[2].json["messages"])
    assert approver.asked == ["general: write_file"] and (tmp_path / "out.md").read_text() == "x"
    assert {e.agent for e in events if e.kind in ("approval_requested", "approval_resolved")} == {"general"}


def test_plan_mode_holds_inside_a_sub_agent(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(delegate("general", "plan it"), text("planned"), text("done"))
    session = open_in(config_in(llm_server.base_url, tmp_path))
    session.set_mode("plan")
    run(session, "go")
    child = offered(llm_server.chat_requests[1].json)
    assert "read_file" in child and "write_file" not in child and "execute_command" not in child


def test_a_broken_agent_file_is_one_clear_notice_and_the_other_agents_stay(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    bad = write(tmp_path / ".ironhive" / "agents" / "broken.md", "no frontmatter here\n")
    write(tmp_path / ".ironhive" / "agents" / "noprompt.md", "---\ndescription: x\n---\n")
    llm_server.script(text("fine"))
    session = open_in(config_in(llm_server.base_url, tmp_path))
    run(session, "go")

    notices = [n for n in session.notices if "agent file" in n]
    assert len(notices) == 2 and str(bad) in notices[0] and "frontmatter" in notices[0]
    assert "no system prompt" in notices[1]
    names = offered(llm_server.chat_requests[0].json)
    assert "agent_explore" in names and "agent_broken" not in names and "agent_noprompt" not in names


def test_delegated_usage_counts_against_the_sessions_limits_inside_and_after_the_child(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write(tmp_path / "a.txt", "a\n")
    llm_server.script(
        delegate("explore", prompt_tokens=10, completion_tokens=0),
        tool_calls(call("read_file", {"path": "a.txt"}), usage=Usage(prompt_tokens=95, completion_tokens=0)),
    )
    config = config_in(llm_server.base_url, tmp_path, "limits:\n  max_total_tokens: 100\n")
    session = open_in(config)
    _, result = run(session, "go")

    assert len(llm_server.chat_requests) == 2  # the child's second turn and the parent's next one are refused
    (outcome,) = result.tool_outcomes
    assert outcome.success is False and "token limit reached: 95 tokens used of 90 allowed" in outcome.output
    assert result.exit_reason == "usage_limit" and session.usage.total_tokens == 105


def test_a_long_answer_is_cut_to_max_output_characters(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(delegate("general", "talk"), text("x" * 50), text("done"))
    config = config_in(llm_server.base_url, tmp_path, "delegation:\n  max_output_characters: 20\n")
    _, result = run(open_in(config), "go")
    assert result.tool_outcomes[0].output == "x" * 20 + "\n[answer cut at 20 of 50 characters]"


def test_with_max_concurrency_one_a_sub_agent_may_still_delegate_its_caller_lends_it_the_slot(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    router = Router(
        {
            "root": [delegate("general", "outer"), text("all done")],
            "outer": [delegate("explore", "inner"), text("outer done")],
            "inner": [text("inner done")],
        }
    )
    llm_server.script(*router.replies())
    session = open_in(config_in(llm_server.base_url, tmp_path, "delegation:\n  max_concurrency: 1\n"))
    events = asyncio.run(asyncio.wait_for(collect(session.run_streaming("go")), 20))

    assert router.order == ["root", "outer", "inner", "outer", "root"]
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result.text == "all done"


def test_cancelling_during_a_delegation_keeps_what_the_child_spent(llm_server: LLMServer, tmp_path: Path) -> None:
    write(tmp_path / "a.txt", "a\n")
    session = open_in(config_in(llm_server.base_url, tmp_path))

    async def go() -> list[Event]:
        loop = asyncio.get_running_loop()

        def cancel_then_hang(body: dict[str, object]) -> Reply:
            loop.call_soon_threadsafe(session.cancel)
            return hang(5)

        llm_server.script(
            delegate("explore", prompt_tokens=10, completion_tokens=1),
            tool_calls(call("read_file", {"path": "a.txt"}), usage=Usage(prompt_tokens=30, completion_tokens=3)),
            cancel_then_hang,
        )
        return await asyncio.wait_for(collect(session.run_streaming("go")), 20)

    events = asyncio.run(go())
    finished = events[-1]
    assert isinstance(finished, RunFinished) and finished.result.exit_reason == "cancelled"
    assert (session.usage.prompt_tokens, session.usage.completion_tokens, session.usage.calls) == (40, 4, 2)
    (outcome,) = finished.result.tool_outcomes
    assert outcome.call.name == "agent_explore" and outcome.success is False
