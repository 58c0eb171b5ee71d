"""Configuration files from a project hive may not trust are read under limits: size, kind, aliases, depth, duplicates.

Before these limits a 405-byte alias bomb cost 46 s and 1.1 GB (8 levels: some 10 GB), 2000 levels of
nesting raised RecursionError, and a FIFO named settings.yaml blocked forever; each test below would
hang, exhaust memory or raise that traceback again if its limit went away (pytest-timeout ends a hang).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from engine.config.files import MAX_DEPTH, read_document
from engine.config.settings import load_settings
from engine.errors import ConfigError
from engine.mcp.config import load_plugins_file, load_servers
from engine.mcp.mcp_json import read_mcp_json
from engine.policy.permission_files import load_permissions_file


def alias_bomb(levels: int) -> str:
    """The "billion laughs": each level is a list of nine aliases of the level below (9**levels strings)."""
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{n}: &a{n} [{','.join([f'*a{n - 1}'] * 9)}]" for n in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def settings_file(project: Path, text: str, name: str = "settings.yaml") -> Path:
    path = project / ".ironhive" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def error_of(path: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        read_document(path)
    return str(caught.value)


def nested_yaml(levels: int) -> str:
    """``levels`` nodes deep: a block mapping of ``levels - 1`` keys around a scalar."""
    return "".join(f"{'  ' * n}k{n}:\n" for n in range(levels - 2)) + f"{'  ' * (levels - 2)}k: v\n"


def nested_json(levels: int) -> str:
    return "[" * (levels - 1) + "1" + "]" * (levels - 1)


@pytest.mark.parametrize("levels", [7, 8])
def test_an_alias_bomb_in_the_settings_is_refused_naming_the_file_and_line(tmp_path: Path, levels: int) -> None:
    path = settings_file(tmp_path, alias_bomb(levels))

    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)

    assert str(caught.value) == f"{path}:2: YAML aliases (*name) are not allowed in hive's configuration files"


@pytest.mark.parametrize(
    ("name", "load"), [("permissions.yaml", load_permissions_file), ("plugins.yaml", load_plugins_file)]
)
def test_permission_and_plugin_files_refuse_an_alias_bomb_too(
    tmp_path: Path, name: str, load: Callable[[Path], object]
) -> None:
    path = settings_file(tmp_path, alias_bomb(8), name)

    with pytest.raises(ConfigError, match=f"^{path}:2: YAML aliases"):
        load(path)


def test_an_alias_used_as_a_key_or_a_merge_is_refused_and_a_lone_anchor_is_allowed(tmp_path: Path) -> None:
    merge = settings_file(tmp_path, "base: &base {max_turns: 3}\nother:\n  <<: *base\n", "merge.yaml")
    key = settings_file(tmp_path, "a: &k name\n? *k\n: 1\n", "key.yaml")
    anchor = settings_file(tmp_path, "model: &chosen openai/gpt-4o\nmax_turns: 5\n", "anchor.yaml")

    assert error_of(merge).startswith(f"{merge}:3: YAML aliases")
    assert error_of(key).startswith(f"{key}:2: YAML aliases")
    assert read_document(anchor) == (
        {"model": "openai/gpt-4o", "max_turns": 5},
        {(): 1, ("model",): 1, ("max_turns",): 2},
    )


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("flow.yaml", "model: x\nlimits: " + "[" * 2000 + "]" * 2000 + "\n"),
        ("top.yaml", "{" * 2000 + "}" * 2000 + "\n"),
        ("mapping.yaml", "a: " + "{a: " * 2000 + "1" + "}" * 2000 + "\n"),
        ("block.yaml", nested_yaml(200)),
    ],
)
def test_yaml_nested_too_deeply_is_an_error_naming_the_file_not_a_recursion_error(
    tmp_path: Path, name: str, text: str
) -> None:
    path = settings_file(tmp_path, text, name)

    problem = error_of(path)

    assert problem.startswith(f"{path}:") and problem.endswith(": nested too deeply (more than 32 levels)")


@pytest.mark.parametrize("levels", [2000, 100])
def test_json_nested_too_deeply_is_an_error_naming_the_file(tmp_path: Path, levels: int) -> None:
    # 2000 levels overflow the json module's recursion; 100 parse and are refused by the depth check
    path = settings_file(tmp_path, '{"model": ' + nested_json(levels) + "}", "settings.json")

    assert error_of(path) == f"{path}: nested too deeply (more than 32 levels)"


def test_the_depth_limit_is_the_same_for_yaml_and_json(tmp_path: Path) -> None:
    deepest_yaml = settings_file(tmp_path, nested_yaml(MAX_DEPTH), "ok.yaml")
    deepest_json = settings_file(tmp_path, nested_json(MAX_DEPTH), "ok.json")
    flow = settings_file(tmp_path, "[" * (MAX_DEPTH - 1) + "1" + "]" * (MAX_DEPTH - 1) + "\n", "flow.yaml")

    read_document(deepest_yaml)
    read_document(deepest_json)
    read_document(flow)
    for path, text in [
        (deepest_yaml, nested_yaml(MAX_DEPTH + 1)),
        (deepest_json, nested_json(MAX_DEPTH + 1)),
        (flow, "[" * MAX_DEPTH + "1" + "]" * MAX_DEPTH + "\n"),
    ]:
        path.write_text(text)
        assert "nested too deeply" in error_of(path)


def test_a_fifo_settings_file_is_refused_at_once(tmp_path: Path) -> None:
    path = tmp_path / ".ironhive" / "settings.yaml"
    path.parent.mkdir()
    os.mkfifo(path)

    assert error_of(path) == f"{path}: is a FIFO, not a regular file"


def test_a_sparse_2_gb_settings_file_is_refused_as_too_large(tmp_path: Path) -> None:
    path = settings_file(tmp_path, "")
    with path.open("wb") as file:
        file.truncate(2 * 1024**3)

    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)

    assert str(caught.value).splitlines()[0] == f"{path}: is larger than 256 KiB"


def test_a_settings_file_linked_to_dev_zero_is_refused(tmp_path: Path) -> None:
    path = tmp_path / ".ironhive" / "permissions.yaml"
    path.parent.mkdir()
    path.symlink_to("/dev/zero")

    with pytest.raises(ConfigError, match=f"^{path}: is a character device, not a regular file$"):
        load_permissions_file(path)


def test_a_duplicate_key_is_an_error_naming_both_lines(tmp_path: Path) -> None:
    top = settings_file(tmp_path, "model: a/b\nmax_turns: 3\nmodel: c/d\n")
    nested = settings_file(tmp_path, "limits:\n  max_tokens: 1\n  max_tokens: 2\n", "nested.yaml")

    assert error_of(top) == f"{top}:3: the key 'model' appears twice (first on line 1)"
    assert error_of(nested) == f"{nested}:3: the key 'max_tokens' appears twice (first on line 2)"


def test_a_duplicate_key_in_json_is_an_error(tmp_path: Path) -> None:
    path = settings_file(tmp_path, '{"permissions": {"bash": [], "bash": []}}', "permissions.json")

    with pytest.raises(ConfigError, match=f"^{path}: the key 'bash' appears twice in one object$"):
        load_permissions_file(path)


def test_ordinary_files_read_as_before_with_the_line_of_every_key(tmp_path: Path) -> None:
    yaml_path = settings_file(tmp_path, "# comment\nmodel: openai/gpt-4o\r\nlimits:\n  max_tokens: 10\n")
    json_path = settings_file(tmp_path, '{\n  "model": "openai/gpt-4o",\n  "limits": {"max_tokens": 10}\n}\n', "s.json")
    expected = {"model": "openai/gpt-4o", "limits": {"max_tokens": 10}}

    assert read_document(yaml_path) == (expected, {(): 2, ("model",): 2, ("limits",): 3, ("limits", "max_tokens"): 4})
    assert read_document(json_path) == (expected, {(): 1, ("model",): 2, ("limits",): 3, ("limits", "max_tokens"): 3})


def test_a_problem_in_a_json_settings_file_names_its_line(tmp_path: Path) -> None:
    path = settings_file(tmp_path, '{\n  "model": "x",\n  "max_turns": "many"\n}\n', "settings.json")

    with pytest.raises(ConfigError, match=f"^{path}:3: max_turns: "):
        load_settings(tmp_path)


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (None, ": is larger than 256 KiB;"),
        ('{"mcpServers": {"a": ' + nested_json(2000) + "}}", ": nested too deeply (more than 32 levels);"),
        ('{"mcpServers": {"a": {"command": "srv"}}, "mcpServers": {}}', ": the key 'mcpServers' appears twice"),
    ],
)
def test_an_mcp_json_too_large_deep_or_ambiguous_is_a_notice_and_none_of_it_is_used(
    tmp_path: Path, text: str | None, problem: str
) -> None:
    path = tmp_path / ".mcp.json"
    if text is None:
        with path.open("wb") as file:
            file.truncate(2 * 1024**3)
    else:
        path.write_text(text)

    found = load_servers(tmp_path)

    assert found.servers == ()
    [notice] = found.notices
    assert notice.startswith(f"{path}{problem}") and notice.endswith("; its MCP servers are not used")


def test_an_mcp_json_fifo_is_a_notice_at_once(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / ".mcp.json")

    assert read_mcp_json(tmp_path / ".mcp.json") == (
        {},
        [f"{tmp_path / '.mcp.json'}: is a FIFO, not a regular file; its MCP servers are not used"],
    )
