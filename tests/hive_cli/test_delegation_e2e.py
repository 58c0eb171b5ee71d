"""`hive run` with a delegation: the agent call shown by its label, the child's calls nested, its events tagged."""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls


def script_delegation(server: LLMServer) -> None:
    server.script(
        tool_calls(call("agent_explore", {"task": "What does notes.md say?"})),
        tool_calls(call("read_file", {"path": "notes.md"})),
        text("It says hello."),
        text("The notes say hello."),
    )


def args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def test_text_output_shows_calling_explore_agent_with_the_childs_read_nested(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "notes.md").write_text("hello\n")
    script_delegation(llm_server)
    done = run_hive("run", "ask explore", *args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "The notes say hello."
    lines = done.stderr.splitlines()
    assert "→ Calling explore Agent What does notes.md say?" in lines
    assert "    → read_file notes.md" in lines
    assert any(line.startswith("  ✓ Calling explore Agent") for line in lines)


def test_stream_json_tags_the_childs_events_with_its_name(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("hello\n")
    script_delegation(llm_server)
    done = run_hive("run", "ask explore", "-o", "stream-json", *args(llm_server, tmp_path))

    assert done.returncode == 0, done.stderr
    started = [r for r in json_lines(done.stdout) if r["type"] == "tool_call_started"]
    assert [(r["agent"], r["depth"]) for r in started] == [("root", 1), ("explore", 3)]
    assert (started[0]["label"], started[0]["tool_kind"]) == ("Calling explore Agent", "agent")
