"""A project on disk to judge calls in: source, tests, secrets, environment files, and symbolic links in and out."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from engine.events import ToolCall
from engine.policy.config import PermissionConfig, default_permissions
from engine.policy.gate import Judgement
from engine.policy.permissions import PermissionPolicy
from engine.tools.base import ToolContext, ToolSpec

Judge = Callable[..., Judgement]


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``~`` for the test: the project lives at ``~/project``."""
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


@pytest.fixture
def project(home: Path) -> Path:
    """The working directory, with every kind of path the rules care about (links, a bare repository, a hard link)."""
    root = home / "project"
    files = {
        "src/app.py": "print('app')\n",
        "src/pkg/mod.py": "x = 1\n",
        "src/config.json": "{}\n",
        "tests/test_app.py": "def test(): pass\n",
        "secrets/key.txt": "hunter2\n",
        "config/secrets/db.txt": "password\n",
        ".env": "TOKEN=1\n",
        "config/.env.local": "TOKEN=2\n",
        "package.json": "{}\n",
        "settings.yaml": "a: 1\n",
        "README.md": "# project\n",
    }
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
    outside = home / "outside"
    outside.mkdir()
    (outside / "data.txt").write_text("elsewhere\n")
    (root / "src" / "link_to_secrets").symlink_to(root / "secrets", target_is_directory=True)
    (root / "notes.txt").symlink_to(root / "secrets" / "key.txt")
    (root / "src" / "outside").symlink_to(outside, target_is_directory=True)
    bare = root / "src" / "fixture.git"  # a bare repository committed as plain files: git would use its config
    (bare / "objects").mkdir(parents=True)
    (bare / "refs").mkdir()
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    os.link(outside / "data.txt", root / "src" / "hardlink.txt")
    return root


@pytest.fixture
def ctx(project: Path, tmp_path: Path) -> ToolContext:
    return ToolContext(cwd=project, data_dir=tmp_path / "data")


def make_judge(config: PermissionConfig, ctx: ToolContext, spec: ToolSpec | None = None) -> Judge:
    """``judge(tool, **arguments)``: the verdict of the rules in ``config`` on that call (of the tool ``spec``)."""
    policy = PermissionPolicy(config)

    def judge(tool: str, **arguments: Any) -> Judgement:
        return policy.judge_call(ToolCall(id="c1", name=tool, arguments=arguments), ctx, spec)

    return judge


@pytest.fixture
def judge(ctx: ToolContext) -> Judge:
    """Judges calls by the built-in default rules."""
    return make_judge(default_permissions(), ctx)
