"""hive reads YAML one bounded way: plugins.yaml edits and lenient skill frontmatter go through engine.config.yaml_reader."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import UserError
from engine.mcp.edit import NewServer, add_server
from engine.skills.loading import SkillLoadError, _read_mapping

ALIASED = "defaults: &d {command: srv}\nplugins:\n  a: {command: srv}\n  b: *d\n"


def test_an_edit_of_a_plugins_file_the_loader_would_refuse_is_refused_and_the_file_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "plugins.yaml"
    path.write_text(ALIASED)
    with pytest.raises(UserError, match="aliases") as caught:
        add_server(path, NewServer(name="c", command="srv"))
    assert "left unchanged" in str(caught.value) and path.read_text() == ALIASED


def test_lenient_skill_frontmatter_refuses_an_alias_bomb_and_keeps_the_last_of_a_repeated_key() -> None:
    bomb = "name: s\ndescription: &a [x, x]\nmore: [*a, *a]\nlist: [a, b]\n"
    with pytest.raises(SkillLoadError):
        _read_mapping(bomb, [])
    warnings: list[str] = []
    assert _read_mapping("name: a\ndescription: b\nname: c\n", warnings) == {"name": "c", "description": "b"}
    assert warnings and "not strict YAML" in warnings[0]
