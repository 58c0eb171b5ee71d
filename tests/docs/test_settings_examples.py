"""Every YAML example the README and docs/ show loads through hive's own loaders without an error.

A block with a top-level ``permissions:`` is a permissions file, ``plugins:`` an MCP server list, and
anything else a settings file; each is written where hive reads it (the user's config folder, and a
trusted project's ``.ironhive/``) and read by the loader hive uses, so an example with a typo, a key
that was renamed or a value out of range fails here as it would fail for a reader who copies it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.config.settings import load_settings
from engine.errors import ConfigError
from engine.mcp.config import load_servers
from engine.paths import PROJECT_DIR_NAME, user_config_dir
from engine.policy.config import load_permissions
from engine.workspace import Workspace

REPOSITORY = Path(__file__).resolve().parents[2]
PAGES = [REPOSITORY / "README.md", *sorted((REPOSITORY / "docs").glob("*.md"))]
BLOCK = re.compile(r"^```ya?ml\n(.*?)^```", re.DOTALL | re.MULTILINE)
TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*):", re.MULTILINE)


def yaml_examples() -> Iterator[tuple[str, str]]:
    """``page:line`` and the text of each YAML block of the pages."""
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for found in BLOCK.finditer(text):
            line = text.count("\n", 0, found.start()) + 1
            yield f"{page.relative_to(REPOSITORY)}:{line}", found.group(1)


def file_name(example: str) -> str:
    """The file an example shows, told by its top-level keys."""
    keys = set(TOP_KEY.findall(example))
    if "permissions" in keys:  # with its guards: section
        return "permissions.yaml"
    if keys == {"plugins"}:
        return "plugins.yaml"
    return "settings.yaml"


def load_as_hive_does(example: str, project: Path) -> None:
    """Write ``example`` as the user's file and as a trusted project's, and read both with hive's loader."""
    name = file_name(example)
    for folder in (user_config_dir(), project / PROJECT_DIR_NAME):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(example, encoding="utf-8")
        workspace = Workspace(cwd=project, root=project, trust="trusted")
        if name == "permissions.yaml":
            load_permissions(workspace)
        elif name == "plugins.yaml":
            load_servers(workspace, environ={})
        else:
            load_settings(workspace).merged()
        (folder / name).unlink()


EXAMPLES = dict(yaml_examples())


def test_the_pages_show_settings_permissions_and_server_examples() -> None:
    kinds = [file_name(example) for example in EXAMPLES.values()]
    assert kinds.count("settings.yaml") >= 10
    assert "permissions.yaml" in kinds and "plugins.yaml" in kinds


@pytest.mark.parametrize("where", sorted(EXAMPLES))
def test_every_example_loads(where: str, tmp_path: Path) -> None:
    load_as_hive_does(EXAMPLES[where], tmp_path)


@pytest.mark.parametrize(
    "broken",
    [
        "model: openai/gpt-4o\nmax_turn: 50\n",  # a misspelt key
        "delegation:\n  max_depth: -1\n",  # out of range
        "permissions:\n  bash:\n    - {pattern: 'git *', action: perhaps}\n",
        "plugins:\n  everything:\n    transport: carrier-pigeon\n    command: npx\n",
    ],
)
def test_a_broken_example_would_fail(broken: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError):
        load_as_hive_does(broken, tmp_path)
