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


SAME_EITHER_WAY = [
    "description: Review it\nargument-hint: [file]\nallowed-tools: Bash(git status:*), Read\n",
    "<<: {a: 1}\nb: 2\nc: 0o17\nd: yes\ne: 2026-01-01\n",
    "tools: [read_file, grep_files]\nnested:\n  - {a: [1, 2]}\n",
]
REFUSED_EITHER_WAY = {
    ALIASED: "line 4: YAML aliases",
    "a: 1\na: 2\n": "line 2: the key 'a' appears twice",
    "a: " + "[" * 40 + "]" * 40 + "\n": "line 1: nested too deeply",
    "[" * 5000: "line 1: nested too deeply",
}


def _both_readers() -> list[object]:
    import yaml

    from engine.config import yaml_reader

    readers: list[object] = [yaml_reader._PureLoader]
    if yaml.__with_libyaml__:  # the wheels carry libyaml: CI runs both
        readers.append(yaml_reader._fast_loader_class())
    return readers


def _read(reader: object, text: str) -> object:
    loader = reader(text)  # type: ignore[operator]
    try:
        return loader.construct_document(loader.get_single_node())
    finally:
        loader.dispose()


def test_libyaml_and_the_pure_python_reader_give_the_same_data() -> None:
    import yaml

    assert yaml.__with_libyaml__, "PyYAML without libyaml: frontmatter would be read 4x slower"
    for text in SAME_EITHER_WAY:
        expected = yaml.safe_load(text)
        assert [_read(reader, text) for reader in _both_readers()] == [expected, expected]


def test_libyaml_and_the_pure_python_reader_refuse_the_same_things() -> None:
    from engine.config.yaml_reader import Refused, load_yaml

    for text, problem in REFUSED_EITHER_WAY.items():
        with pytest.raises(Refused) as through_load:
            load_yaml(text)
        assert str(through_load.value).startswith(problem), text[:20]
        for reader in _both_readers():
            with pytest.raises(yaml_error()) as caught:
                _read(reader, text)
            # libyaml stops 1,000 open brackets itself ("exceeded maximum nesting depth"); load_yaml says it as ours
            assert "nest" in str(caught.value) or str(caught.value).startswith(problem), (reader, text[:20])


def yaml_error() -> type[Exception]:
    import yaml

    return yaml.YAMLError
