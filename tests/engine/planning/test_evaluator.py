"""The evaluator: a step's run judged by its exit, its last tool round and its words; the model optionally."""

from __future__ import annotations

import asyncio
from pathlib import Path

from engine.planning.evaluator import ModelEvaluator, evaluate_run
from engine.tools.builtin import builtin_tools
from tests.support.agents import client_for, make_loop, run_events
from tests.support.llm_server import LLMServer, call, text, tool_calls


def test_a_run_that_completed_cleanly_passes(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    llm_server.script(tool_calls(call("read_file", {"path": "a.txt"})), text("Read it; step done."))
    _, result = run_events(make_loop(llm_server, tmp_path, builtin_tools()), "step 1")
    assert evaluate_run(result).ok


def test_a_failed_call_in_the_last_tool_round_fails_the_step(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("read_file", {"path": "missing.txt"})), text("Here you go."))
    _, result = run_events(make_loop(llm_server, tmp_path, builtin_tools()), "step 1")
    verdict = evaluate_run(result)
    assert not verdict.ok and "read_file" in verdict.reason


def test_a_failure_the_model_recovered_from_in_a_later_round_does_not_count(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "b.txt").write_text("b\n")
    llm_server.script(
        tool_calls(call("read_file", {"path": "missing.txt"})),
        tool_calls(call("read_file", {"path": "b.txt"})),
        text("Found it in b.txt."),
    )
    _, result = run_events(make_loop(llm_server, tmp_path, builtin_tools()), "step 1")
    assert evaluate_run(result).ok


def test_a_model_that_says_it_could_not_fails_the_step(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("I looked everywhere. I could not find the parser module. Sorry."))
    _, result = run_events(make_loop(llm_server, tmp_path), "step 1")
    verdict = evaluate_run(result)
    assert not verdict.ok and verdict.reason == 'the model said "I could not find the parser module"'


def test_a_run_stopped_by_its_turn_limit_fails_the_step(llm_server: LLMServer, tmp_path: Path) -> None:
    from engine.run.loop import LoopOptions

    (tmp_path / "a.txt").write_text("a\n")
    llm_server.script(tool_calls(call("read_file", {"path": "a.txt"})))
    loop = make_loop(llm_server, tmp_path, builtin_tools(), options=LoopOptions(max_turns=1))
    _, result = run_events(loop, "step 1")
    verdict = evaluate_run(result)
    assert not verdict.ok and verdict.reason.startswith("the run ended with max_turns")


def test_the_model_judge_is_asked_only_after_the_heuristic_passed(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Step done."), text("NOT DONE: the test was never run"))
    _, result = run_events(make_loop(llm_server, tmp_path), "Run the tests")
    verdict = asyncio.run(ModelEvaluator(client_for(llm_server)).evaluate("Run the tests", result))
    assert not verdict.ok and verdict.reason == "the test was never run" and verdict.usage is not None
    assert "Step: Run the tests" in llm_server.chat_requests[-1].messages[1]["content"]

    llm_server.script(text("I cannot do that."))
    _, result = run_events(make_loop(llm_server, tmp_path), "Run the tests")
    asks = len(llm_server.chat_requests)
    assert not asyncio.run(ModelEvaluator(client_for(llm_server)).evaluate("Run the tests", result)).ok
    assert len(llm_server.chat_requests) == asks


def test_the_model_judge_passes_a_step_it_says_is_done(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Ran them; all pass."), text("DONE"))
    _, result = run_events(make_loop(llm_server, tmp_path), "Run the tests")
    assert asyncio.run(ModelEvaluator(client_for(llm_server)).evaluate("Run the tests", result)).ok
