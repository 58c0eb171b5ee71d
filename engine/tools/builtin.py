"""The built-in tools, in the order they are offered to the model."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from engine.repomap.tool import RepoMapTool
from engine.tools.base import Tool
from engine.tools.edit import EditFileTool
from engine.tools.files import ListDirectoryTool, ReadFileTool, WriteFileTool
from engine.tools.search import GlobFilesTool, GrepFilesTool, default_search_backend
from engine.tools.shell import ExecuteCommandTool
from engine.tools.todo import TodoStore, TodoWriteTool
from engine.tools.web.fetch_tool import WebFetchTool
from engine.tools.web.options import WebToolOptions
from engine.tools.web.search_tool import WebSearchTool

if TYPE_CHECKING:
    from engine.sandbox.base import Sandbox


def builtin_tools(
    todo_store: TodoStore | None = None,
    *,
    sandbox: Sandbox | None = None,
    unsafe_dirs: Sequence[Path] = (),
    web: WebToolOptions | None = None,
) -> list[Tool]:
    """Fresh instances of every built-in tool.

    Order: read_file, write_file, edit_file, list_directory, glob_files, grep_files, repo_map,
    execute_command, todo_write, web_fetch, web_search. ``todo_store`` receives the todo list (a new store when
    omitted); the search tools use ripgrep when it is installed (never one in ``unsafe_dirs``, the folders
    sandboxed commands can write); ``sandbox`` confines execute_command (None: no sandbox); ``web`` configures
    the web tools (defaults when omitted).
    """
    backend = default_search_backend(unsafe_dirs)
    return [
        ReadFileTool(),
        WriteFileTool(),
        EditFileTool(),
        ListDirectoryTool(),
        GlobFilesTool(backend),
        GrepFilesTool(backend),
        RepoMapTool(),
        ExecuteCommandTool(sandbox=sandbox),
        TodoWriteTool(todo_store),
        WebFetchTool(web),
        WebSearchTool(web),
    ]
