"""Observation masking: old tool results go to the model as placeholders, the history keeps them whole."""

from __future__ import annotations

import asyncio
from pathlib import Path

from msgspec.structs import replace

from engine.config.loader import Overrides, SessionConfig, load_config
from engine.context.masking import ObservationMasking, placeholder
from engine.context.recall import RecallResultTool
from engine.events import Event
from engine.session import Session
from engine.session_open import open_session
from engine.session_store import SessionStore
from engine.tools.base import ToolContext
from tests.support.agents import collect
from tests.support.llm_server import LLMServer, call, text, tool_calls

ROUNDS = 15


def config_for(server: LLMServer, cwd: Path, *, persist: bool = False) -> SessionConfig:
    overrides = Overrides(model="openai/test-model", api_base=server.base_url, api_key="sk-test")
    return load_config(cwd, overrides, persist=persist)


def run(session: Session, prompt: str) -> list[Event]:
    return asyncio.run(collect(session.run_streaming(prompt)))


def write_files(cwd: Path) -> None:
    for i in range(ROUNDS):
        (cwd / f"f{i:02}.py").write_text("".join(f"value_{i}_{n} = {n}\n" for n in range(100)))


def results_by_call(messages: list[dict[str, object]]) -> dict[str, str]:
    return {str(m["tool_call_id"]): str(m["content"]) for m in messages if m.get("role") == "tool"}


def test_results_older_than_ten_rounds_are_masked_in_the_request_only_and_can_be_recalled(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    write_files(tmp_path)
    reads = [tool_calls(call("read_file", {"path": f"f{i:02}.py"}, id=f"r{i}")) for i in range(ROUNDS)]
    recall = tool_calls(call("recall_result", {"id": "r0"}, id="back"))
    llm_server.script(*reads, recall, text("All read."))
    session = asyncio.run(open_session(config_for(llm_server, tmp_path, persist=True), approver=None, title="t"))
    run(session, "read every file")
    rows = dict(session.context_breakdown().rows)
    asyncio.run(session.close())

    saved = results_by_call(list(session.messages))
    after_all_reads = llm_server.chat_requests[ROUNDS].messages
    sent = results_by_call(after_all_reads)
    for i in range(5):
        whole = saved[f"r{i}"]
        assert "value_" in whole and sent[f"r{i}"] == placeholder("read_file", f"f{i:02}.py", len(whole), f"r{i}")
    assert all(sent[f"r{i}"] == saved[f"r{i}"] for i in range(5, ROUNDS))
    asked = [c["id"] for m in after_all_reads if m["role"] == "assistant" for c in m.get("tool_calls") or ()]
    assert asked == [f"r{i}" for i in range(ROUNDS)]  # the calls stay, only their results are masked

    recalled = results_by_call(llm_server.chat_requests[ROUNDS + 1].messages)["back"]
    assert recalled == saved["r0"] and "value_0_99 = 99" in recalled
    assert session.id is not None and session.writer is not None
    loaded = SessionStore(Path(str(session.writer.path)).parent).load(session.id)
    assert results_by_call(list(loaded.messages)) == saved  # the session file keeps every result whole
    assert 0 < rows["masked tool results"] < rows["tool results"] / 5  # /context shows the request as sent


def test_recall_result_is_offered_in_plan_mode(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Planned."))
    session = asyncio.run(open_session(config_for(llm_server, tmp_path), approver=None))
    session.set_mode("plan")
    run(session, "plan it")
    asyncio.run(session.close())
    offered = [t["function"]["name"] for t in llm_server.chat_requests[0].json["tools"]]
    assert "recall_result" in offered and "write_file" not in offered


def test_a_result_shorter_than_its_placeholder_and_the_latest_rounds_stay_whole() -> None:
    history: list[dict[str, object]] = [{"role": "user", "content": "go"}]
    for i in range(3):
        arguments = f'{{"command": "echo {i}"}}'
        function = {"name": "execute_command", "arguments": arguments}
        history.append({"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "function": function}]})
        history.append({"role": "tool", "tool_call_id": f"c{i}", "content": "ok" if i == 0 else "x" * 500})
    prepared = ObservationMasking(protected_rounds=1).prepare(history, [])
    contents = [m["content"] for m in prepared.messages if m["role"] == "tool"]
    assert contents == ["ok", placeholder("execute_command", "echo 1", 500, "c1"), "x" * 500]
    assert history[4]["content"] == "x" * 500  # the messages given are not changed


def test_recalling_an_unknown_call_is_an_error_for_the_model(tmp_path: Path) -> None:
    history = [{"role": "tool", "tool_call_id": "c1", "content": "the whole result"}]
    tool = RecallResultTool(lambda: history)
    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path)
    found = asyncio.run(tool.run({"id": "c1"}, ctx))
    missing = asyncio.run(tool.run({"id": "nope"}, ctx))
    assert (found.output, found.success) == ("the whole result", True)
    assert missing.success is False and "nope" in missing.output


LONG_AND_SHORT_ROUNDS = 22


def write_long_and_short_files(cwd: Path) -> None:
    """Even rounds read a long file (about 2,000 characters), odd rounds a short one (about 300)."""
    for i in range(LONG_AND_SHORT_ROUNDS):
        lines = 100 if i % 2 == 0 else 20
        (cwd / f"g{i:02}.py").write_text("".join(f"v{n} = {n}\n" for n in range(lines)))


def masked_ids(messages: list[dict[str, object]]) -> set[str]:
    return {call_id for call_id, content in results_by_call(messages).items() if content.startswith("[result of ")}


def run_long_and_short(server: LLMServer, cwd: Path, min_chars: int | None) -> tuple[dict[str, str], list[set[str]]]:
    """Every round's request: which results it masked; and the results as the session keeps them."""
    write_long_and_short_files(cwd)
    reads = [tool_calls(call("read_file", {"path": f"g{i:02}.py"}, id=f"g{i}")) for i in range(LONG_AND_SHORT_ROUNDS)]
    server.script(*reads, text("All read."))
    config = config_for(server, cwd)
    if min_chars is not None:
        config = replace(config, context=replace(config.context, observation_masking_min_chars=min_chars))
    session = asyncio.run(open_session(config, approver=None))
    run(session, "read every file")
    asyncio.run(session.close())
    return results_by_call(list(session.messages)), [masked_ids(r.messages) for r in server.chat_requests]


def test_older_rounds_are_masked_batch_by_batch_as_rounds_pass_and_short_results_stay_whole(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    saved, masked_by_request = run_long_and_short(llm_server, tmp_path, None)  # the defaults: 10 / 5 / 1,000

    long_ids = {f"g{i}" for i in range(0, LONG_AND_SHORT_ROUNDS, 2)}
    assert all(len(saved[i]) > 1_000 for i in long_ids)
    assert all(len(saved[f"g{i}"]) < 1_000 for i in range(1, LONG_AND_SHORT_ROUNDS, 2))
    for rounds_done, masked in enumerate(masked_by_request):
        unprotected = max(0, rounds_done - 10)
        old = unprotected - unprotected % 5  # whole batches of five rounds
        assert masked == {f"g{i}" for i in range(old) if f"g{i}" in long_ids}, rounds_done
    assert [len(m) for m in masked_by_request[14:22]] == [0, 3, 3, 3, 3, 3, 5, 5]


def test_a_minimum_of_zero_masks_short_results_too(llm_server: LLMServer, tmp_path: Path) -> None:
    _, masked_by_request = run_long_and_short(llm_server, tmp_path, 0)
    assert masked_by_request[-1] == {f"g{i}" for i in range(10)}


def test_the_minimum_is_inclusive_and_longer_results_are_masked() -> None:
    history: list[dict[str, object]] = [{"role": "user", "content": "go"}]
    for i, size in enumerate((400, 401, 10)):
        function = {"name": "execute_command", "arguments": f'{{"command": "echo {i}"}}'}
        history.append({"role": "assistant", "content": None, "tool_calls": [{"id": f"c{i}", "function": function}]})
        history.append({"role": "tool", "tool_call_id": f"c{i}", "content": "x" * size})
    prepared = ObservationMasking(protected_rounds=1, min_chars=400).prepare(history, [])
    contents = [m["content"] for m in prepared.messages if m["role"] == "tool"]
    assert contents == ["x" * 400, placeholder("execute_command", "echo 1", 401, "c1"), "x" * 10]
