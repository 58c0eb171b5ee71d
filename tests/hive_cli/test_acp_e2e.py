"""``hive acp`` driven by the ACP SDK's own client over the real process's stdio, with the scripted model server."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import acp
from acp.schema import ClientCapabilities, FileEditToolCallContent, FileSystemCapabilities, McpServerStdio

from tests.support.acp_client import EditorClient, check_against_schema, hive_acp
from tests.support.cli import run_hive
from tests.support.llm_server import HeldReply, LLMServer, call, text, tool_calls
from tests.support.mcp_servers import PY_SERVER


def model_args(server: LLMServer) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test"]


async def start(conn: acp.core.ClientSideConnection, *, files: bool = False) -> acp.InitializeResponse:
    capabilities = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=files, write_text_file=files))
    return await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=capabilities)


def test_a_prompt_is_answered_in_chunks_and_the_session_loads_again_in_the_editor_and_the_terminal(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("Hello from hive."), text("Still here."))
    first, second = EditorClient(), EditorClient()
    folder = str(tmp_path.resolve())

    async def editor() -> str:
        async with hive_acp(first, *model_args(llm_server), cwd=tmp_path) as conn:
            hello = await start(conn)
            assert hello.protocol_version == acp.PROTOCOL_VERSION
            assert hello.agent_capabilities is not None and hello.agent_capabilities.load_session is True
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            assert opened.modes is not None and opened.modes.current_mode_id == "work"
            answered = await conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("say hello")])
            assert answered.stop_reason == "end_turn"
            assert answered.usage is not None and answered.usage.output_tokens > 0
        async with hive_acp(second, *model_args(llm_server), cwd=tmp_path) as conn:
            await start(conn)
            listed = await conn.list_sessions(cwd=str(tmp_path))
            assert [s.session_id for s in listed.sessions] == [opened.session_id]
            assert listed.sessions[0].cwd == folder
            await conn.load_session(cwd=str(tmp_path), session_id=opened.session_id, mcp_servers=[])
        return opened.session_id

    session_id = asyncio.run(editor())

    assert first.said() == "Hello from hive."
    [filled] = first.of_kind("usage_update")
    assert 0 < filled.used < filled.size
    assert {sid for sid, _ in first.updates} == {session_id}
    assert second.kinds() == ["user_message_chunk", "agent_message_chunk"]
    assert second.updates[0][1].content.text == "say hello" and second.said() == "Hello from hive."
    check_against_schema(first.wire_notifications() + second.wire_notifications())
    terminal = run_hive(
        "run", "and again", "--resume", session_id, "-o", "json", *model_args(llm_server), "-C", str(tmp_path)
    )
    assert terminal.returncode == 0, terminal.stderr
    assert json.loads(terminal.stdout)["session_id"] == session_id
    assert [m["content"] for m in llm_server.chat_requests[1].messages[1:]] == [
        "say hello",
        "Hello from hive.",
        "and again",
    ]


def test_an_edit_that_needs_permission_is_asked_with_its_diff_then_allowed_then_rejected(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("old\n")
    llm_server.script(
        tool_calls(call("write_file", {"path": "notes.txt", "content": "new\n"}, id="first")),
        text("Wrote it."),
        tool_calls(call("write_file", {"path": "notes.txt", "content": "newer\n"}, id="second")),
        text("It was refused."),
    )
    client = EditorClient("allow-once", "reject-once")

    async def editor() -> tuple[str, str]:
        async with hive_acp(client, *model_args(llm_server), cwd=tmp_path) as conn:
            await start(conn)
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            allowed = await conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("write it")])
            rejected = await conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("again")])
        return allowed.stop_reason, rejected.stop_reason

    assert asyncio.run(editor()) == ("end_turn", "end_turn")
    asked, options = client.questions[0]
    assert [o.kind for o in options][0] == "allow_once" and "reject_once" in [o.kind for o in options]
    assert asked.tool_call_id == "first" and asked.kind == "edit"
    assert asked.locations is not None and asked.locations[0].path == str(tmp_path / "notes.txt")
    proposed = [c for c in asked.content or [] if isinstance(c, FileEditToolCallContent)]
    assert [(p.old_text, p.new_text) for p in proposed] == [("old\n", "new\n")]
    assert (tmp_path / "notes.txt").read_text() == "new\n"  # the second write was rejected

    started = {u.tool_call_id: u for u in client.of_kind("tool_call")}
    assert started["first"].kind == "edit" and started["first"].status == "in_progress"
    finished = {u.tool_call_id: u for u in client.of_kind("tool_call_update") if u.status in ("completed", "failed")}
    done = finished["first"].content[0]
    assert finished["first"].status == "completed" and isinstance(done, FileEditToolCallContent)
    assert (done.path, done.old_text, done.new_text) == (str(tmp_path / "notes.txt"), "old\n", "new\n")
    assert finished["second"].status == "failed"
    assert "rejected" in llm_server.chat_requests[3].messages[-1]["content"]
    check_against_schema(client.wire_notifications())


def test_cancel_mid_turn_ends_the_prompt_cancelled_and_the_session_goes_on(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    held = HeldReply(text("too late"))
    llm_server.script(held, text("After the cancel."))
    client = EditorClient()

    async def editor() -> tuple[str, str]:
        async with hive_acp(client, *model_args(llm_server), cwd=tmp_path) as conn:
            await start(conn)
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            turn = asyncio.create_task(conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("go")]))
            await asyncio.to_thread(held.wait_arrived)
            await conn.cancel(session_id=opened.session_id)
            cancelled = await turn
            held.release()
            after = await conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("go on")])
        return cancelled.stop_reason, after.stop_reason

    assert asyncio.run(editor()) == ("cancelled", "end_turn")
    assert client.said() == "After the cancel."


def test_the_editors_mcp_server_joins_the_session_and_allow_always_is_remembered(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(
        tool_calls(call("mcp__py__echo", {"text": "one"}, id="e1")),
        tool_calls(call("mcp__py__echo", {"text": "two"}, id="e2")),
        text("Echoed twice."),
    )
    client = EditorClient("allow-always")
    server = McpServerStdio(name="py", command=sys.executable, args=[str(PY_SERVER), "stdio"], env=[])

    async def editor() -> str:
        async with hive_acp(client, *model_args(llm_server), cwd=tmp_path) as conn:
            await start(conn)
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[server])
            answered = await conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("echo")])
        return answered.stop_reason

    assert asyncio.run(editor()) == "end_turn"
    [(asked, options)] = client.questions  # the second call was covered by the first answer
    assert asked.tool_call_id == "e1" and "allow_always" in [o.kind for o in options]
    finished = {u.tool_call_id: u for u in client.of_kind("tool_call_update") if u.status == "completed"}
    assert set(finished) == {"e1", "e2"}
    assert "two" in finished["e2"].content[0].content.text
    check_against_schema(client.wire_notifications())


def test_plan_mode_the_todo_list_as_a_plan_and_the_model_menu(llm_server: LLMServer, tmp_path: Path) -> None:
    todos = [{"content": "Look around", "status": "in_progress"}, {"content": "Write it up", "status": "pending"}]
    llm_server.script(tool_calls(call("todo_write", {"todos": todos}, id="todo")), text("Planned."))
    client = EditorClient()

    async def editor() -> list[str]:
        async with hive_acp(
            client, *model_args(llm_server), "--offer-model", "openai/other-model", cwd=tmp_path
        ) as conn:
            await start(conn)
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            [menu] = opened.config_options or []
            await conn.set_session_mode(session_id=opened.session_id, mode_id="plan")
            chosen = await conn.set_config_option(
                config_id="model", session_id=opened.session_id, value="openai/other-model"
            )
            assert chosen.config_options[0].current_value == "openai/other-model"
            attached = acp.resource_block(acp.embedded_text_resource("file:///work/notes.md", "Ship on Friday."))
            await conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("plan it"), attached])
            return [option.value for option in menu.options]

    assert asyncio.run(editor()) == ["openai/test-model", "openai/other-model"]
    assert [u.current_mode_id for u in client.of_kind("current_mode_update")][0] == "plan"
    [plan] = client.of_kind("plan")
    assert [(e.content, e.status) for e in plan.entries] == [("Look around", "in_progress"), ("Write it up", "pending")]
    request = llm_server.chat_requests[0]
    asked = request.messages[-1]["content"]
    assert asked.startswith("plan it\n\nContext from /work/notes.md:") and "Ship on Friday." in asked
    assert request.json["model"] == "other-model"
    offered = {tool["function"]["name"] for tool in request.json["tools"]}
    assert "todo_write" in offered and "write_file" not in offered
    check_against_schema(client.wire_notifications())


def test_files_come_through_the_editors_fs_methods_when_it_offers_them(llm_server: LLMServer, tmp_path: Path) -> None:
    notes, pipe, lost = tmp_path / "notes.txt", tmp_path / "pipe", tmp_path / "lost.txt"
    notes.write_text("saved on disk\n")
    lost.write_text("on disk\n")
    os.mkfifo(pipe)
    edit = {"path": "notes.txt", "old_string": "unsaved in the editor", "new_string": "edited through the editor"}
    llm_server.script(
        tool_calls(
            call("read_file", {"path": "notes.txt"}, id="read"),
            call("read_file", {"path": "pipe"}, id="pipe"),
            call("read_file", {"path": "lost.txt"}, id="lost"),
        ),
        tool_calls(call("edit_file", edit, id="edit")),
        text("Edited."),
    )
    client = EditorClient("allow-once")
    client.buffers[str(notes)] = "unsaved in the editor\n"
    client.unreadable.add(str(lost))

    async def editor() -> str:
        async with hive_acp(client, *model_args(llm_server), cwd=tmp_path) as conn:
            await start(conn, files=True)
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            await conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("edit the notes")])
        return opened.session_id

    session_id = asyncio.run(editor())

    results = {m["tool_call_id"]: m["content"] for m in llm_server.chat_requests[1].messages if m["role"] == "tool"}
    assert "unsaved in the editor" in results["read"] and "saved on disk" not in results["read"]
    assert "is a FIFO, not a regular file" in results["pipe"], results["pipe"]
    assert "the editor could not give it (the editor lost that buffer)" in results["lost"], results["lost"]
    # The two reads ran side by side (read-only calls may); the pipe was refused before the editor was asked.
    assert sorted(client.file_requests[:2]) == [("read", session_id, str(lost)), ("read", session_id, str(notes))]
    # The edit: the question's diff read the buffer, then the tool read it again and had the editor write.
    assert client.file_requests[2:] == [
        ("read", session_id, str(notes)),
        ("read", session_id, str(notes)),
        ("write", session_id, str(notes)),
    ]
    [(asked, _)] = client.questions
    proposed = [c for c in asked.content or [] if isinstance(c, FileEditToolCallContent)]
    assert [(p.old_text, p.new_text) for p in proposed] == [("unsaved in the editor\n", "edited through the editor\n")]
    assert client.buffers[str(notes)] == "edited through the editor\n" == notes.read_text()
    edited = [m for m in llm_server.chat_requests[2].messages if m["role"] == "tool"][-1]["content"]
    assert edited.startswith("Edited notes.txt: replaced 1 occurrence"), edited
    check_against_schema(client.wire_notifications())


def test_without_the_editors_fs_methods_files_are_read_and_written_on_disk(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("saved on disk\n")
    llm_server.script(tool_calls(call("read_file", {"path": "notes.txt"}, id="read")), text("Read."))
    client = EditorClient()
    client.buffers[str(tmp_path / "notes.txt")] = "unsaved in the editor\n"

    async def editor() -> None:
        async with hive_acp(client, *model_args(llm_server), cwd=tmp_path) as conn:
            await start(conn)
            opened = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            await conn.prompt(session_id=opened.session_id, prompt=[acp.text_block("read the notes")])

    asyncio.run(editor())

    [result] = [m["content"] for m in llm_server.chat_requests[1].messages if m["role"] == "tool"]
    assert "saved on disk" in result and client.file_requests == []
