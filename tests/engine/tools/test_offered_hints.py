"""Tool messages that name another tool name it only when the model was offered it in that round
(through the real loop, over HTTP to the scripted model server: the hint is read off the wire)."""

from __future__ import annotations

from pathlib import Path

from engine.model.types import CallOptions
from engine.run.loop import AgentLoop, LoopOptions, ToolEnvironment
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry
from tests.support.agents import client_for, run_events
from tests.support.llm_server import LLMServer, call, text, tool_calls


def sent_result(server: LLMServer) -> str:
    message = server.chat_requests[-1].messages[-1]
    assert message["role"] == "tool"
    return str(message["content"])


def run_with(
    server: LLMServer, tmp_path: Path, offered: tuple[str, ...] | None, request: dict[str, dict[str, str]]
) -> str:
    tmp_path.mkdir(exist_ok=True)
    (tmp_path / "blob.bin").write_bytes(b"\x7fELF\x00\x01\x02" * 10)
    (tmp_path / "folder").mkdir()
    server.script(tool_calls(call(*request.popitem())), text("Noted."))
    loop = AgentLoop(
        client=client_for(server, direct=True),
        toolset=ToolRegistry(builtin_tools()),
        environment=ToolEnvironment(cwd=tmp_path, data_dir=tmp_path / ".hive"),
        options=LoopOptions(call_options=CallOptions(tools=offered)),
    )
    run_events(loop, "look")
    return sent_result(server)


def test_a_binary_file_points_to_execute_command_only_when_it_is_offered(llm_server: LLMServer, tmp_path: Path) -> None:
    narrow = run_with(llm_server, tmp_path / "narrow", ("read_file",), {"read_file": {"path": "blob.bin"}})
    wide = run_with(
        llm_server, tmp_path / "wide", ("read_file", "execute_command"), {"read_file": {"path": "blob.bin"}}
    )

    assert "is a binary file" in narrow and "execute_command" not in narrow
    assert "execute_command can look into it" in wide


def test_a_folder_points_to_list_directory_only_when_it_is_offered(llm_server: LLMServer, tmp_path: Path) -> None:
    narrow = run_with(llm_server, tmp_path / "narrow", ("read_file",), {"read_file": {"path": "folder"}})
    everything = run_with(llm_server, tmp_path / "all", None, {"read_file": {"path": "folder"}})

    assert narrow.endswith("is a directory, not a file.")
    assert "use list_directory to see its entries" in everything


def test_an_unknown_tool_is_answered_with_the_tools_offered_not_all_there_are(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    answer = run_with(llm_server, tmp_path, ("read_file", "grep_files"), {"delete_everything": {"path": "/"}})

    assert answer.startswith("Unknown tool 'delete_everything'")
    assert answer.endswith("Available tools: grep_files, read_file.")
