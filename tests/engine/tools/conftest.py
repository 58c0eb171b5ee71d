"""Fixtures for the built-in tool tests: a workspace, a tool context, a way to call a tool, search backends."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.tools.base import Tool, ToolContext, ToolResult
from engine.tools.ripgrep import RipgrepBackend, find_ripgrep
from engine.tools.search_backend import PythonSearchBackend, SearchBackend

Call = Callable[..., ToolResult]

_RG = find_ripgrep()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """The working directory the tools run in."""
    path = tmp_path / "workspace"
    path.mkdir()
    return path


@pytest.fixture
def ctx(tmp_path: Path, workspace: Path) -> ToolContext:
    return ToolContext(cwd=workspace, data_dir=tmp_path / "data")


@pytest.fixture
def call(ctx: ToolContext) -> Call:
    """``call(tool, **arguments)`` runs the tool in ``ctx`` (or ``context=...``) and returns its result."""

    def run(tool: Tool, context: ToolContext | None = None, **arguments: Any) -> ToolResult:
        return asyncio.run(tool.run(arguments, context or ctx))

    return run


@pytest.fixture(
    params=[
        pytest.param("python"),
        pytest.param("ripgrep", marks=pytest.mark.skipif(_RG is None, reason="ripgrep (rg) is not installed")),
    ]
)
def backend(request: pytest.FixtureRequest) -> SearchBackend:
    """Each search backend in turn: the same tests prove they give the same results."""
    if request.param == "ripgrep":
        assert _RG is not None
        return RipgrepBackend(_RG)
    return PythonSearchBackend()
