from __future__ import annotations

import asyncio
import json
from pathlib import Path

from engine.tools.base import ToolContext
from engine.tools.builtin import builtin_tools
from engine.tools.todo import TodoStore

PARAMETERS = {
    "read_file": (["path", "offset", "limit"], ["path"]),
    "write_file": (["path", "content"], ["path", "content"]),
    "edit_file": (["path", "old_string", "new_string", "replace_all"], ["path", "old_string", "new_string"]),
    "list_directory": (["path"], []),
    "glob_files": (["pattern", "path"], ["pattern"]),
    "grep_files": (["pattern", "path", "glob", "ignore_case"], ["pattern"]),
    "repo_map": (["path"], []),
    "execute_command": (["command", "timeout_seconds"], ["command"]),
    "todo_write": (["todos"], ["todos"]),
    "web_fetch": (["url", "prompt", "offset"], ["url"]),
    "web_search": (["query"], ["query"]),
}
READ_ONLY = {
    "read_file",
    "list_directory",
    "glob_files",
    "grep_files",
    "repo_map",
    "todo_write",
    "web_fetch",
    "web_search",
}


def test_builtin_tools_are_offered_in_the_documented_order() -> None:
    assert [tool.spec.name for tool in builtin_tools()] == list(PARAMETERS)


def test_builtin_tool_parameters_have_the_documented_names() -> None:
    for tool in builtin_tools():
        schema = tool.spec.parameters
        assert (list(schema["properties"]), schema.get("required", [])) == PARAMETERS[tool.spec.name]


def test_every_tool_and_parameter_is_described_for_the_model() -> None:
    for tool in builtin_tools():
        spec = tool.spec
        assert len(spec.description) > 80
        assert all(len(prop.get("description", "")) > 10 for prop in spec.parameters["properties"].values())
        assert "$ref" not in json.dumps(spec.to_openai())


def test_only_tools_that_change_nothing_are_read_only() -> None:
    assert {tool.spec.name for tool in builtin_tools() if tool.spec.read_only} == READ_ONLY


def test_the_todo_store_given_receives_the_list(tmp_path: Path) -> None:
    store = TodoStore()
    todo = next(tool for tool in builtin_tools(store) if tool.spec.name == "todo_write")
    ctx = ToolContext(cwd=tmp_path, data_dir=tmp_path / "data")
    asyncio.run(todo.run({"todos": [{"content": "step", "status": "pending"}]}, ctx))
    assert [item.content for item in store.items] == ["step"]
