"""``hive acp``'s edges: stdout carries the protocol and nothing else, the SDK loads only for ``hive acp``, bad
requests get an error answer, and a cancel while the editor is asking a question ends the turn cancelled."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import acp
import pytest
from acp.schema import PermissionOption, RequestPermissionResponse, ToolCallUpdate

from tests.hive_cli.test_redaction_lazy_import import imported
from tests.support.acp_client import EditorClient, hive_acp
from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer, call, text, tool_calls

STRAY = """
import os, sys
from hive_cli.acp.channel import take_stdout
channel = take_stdout()
print("a stray print")
os.system("echo a child output")
channel.write(b'{"jsonrpc": "2.0"}\\n')
"""


def model_args(server: LLMServer) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test"]


def test_once_the_protocol_has_stdout_prints_and_children_write_to_stderr() -> None:
    done = subprocess.run([sys.executable, "-c", STRAY], env=hive_env(), capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout == '{"jsonrpc": "2.0"}\n'
    assert "a stray print" in done.stderr and "a child output" in done.stderr


@pytest.mark.parametrize("args", [["--help"], ["run", "--help"], ["acp", "--help"]], ids=" ".join)
def test_the_protocols_sdk_loads_only_when_hive_acp_serves(args: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hive_cli", *args], env=hive_env(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "acp" not in imported(done.stderr)


def test_a_folder_that_is_not_one_is_an_error_answer_and_hive_keeps_serving(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("Fine."))
    client = EditorClient()

    async def editor() -> tuple[str, str]:
        async with hive_acp(client, *model_args(llm_server), cwd=tmp_path) as conn:
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            with pytest.raises(acp.RequestError) as refused:
                await conn.new_session(cwd=str(tmp_path / "missing"), mcp_servers=[])
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            answered = await conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("hi")])
        return str(refused.value), answered.stop_reason

    message, stop = asyncio.run(editor())
    assert "is not an absolute path to a folder" in message and stop == "end_turn"
    assert "Traceback" not in client.stderr


class SlowEditor(EditorClient):
    """An editor whose person has not answered yet when the turn is cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = asyncio.Event()

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.questions.append((tool_call, options))
        self.asked.set()
        await asyncio.Event().wait()  # never answered: the cancel must end the turn
        raise AssertionError("unreachable")


def test_a_cancel_while_the_editor_asks_ends_the_turn_cancelled_and_nothing_runs(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(tool_calls(call("write_file", {"path": "notes.txt", "content": "x"}, id="w")), text("not used"))
    client = SlowEditor()

    async def editor() -> str:
        async with hive_acp(client, *model_args(llm_server), cwd=tmp_path) as conn:
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            turn = asyncio.create_task(conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("write")]))
            await client.asked.wait()
            await conn.cancel(session_id=opened.session_id)
            return (await turn).stop_reason

    assert asyncio.run(editor()) == "cancelled"
    assert not (tmp_path / "notes.txt").exists()
    assert len(llm_server.chat_requests) == 1
