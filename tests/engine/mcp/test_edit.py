"""Editing plugins.yaml as text: entries added, replaced and removed with the rest of the file as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import UserError
from engine.mcp.config import load_plugins_file
from engine.mcp.edit import NewServer, add_server, remove_server

COMMENTED = """\
# the team's servers
plugins:
    # docs first
    docs:
        transport: http   # remote
        url: http://127.0.0.1:3001/mcp

    # the big one
    everything: {command: mcp-server-everything, args: [stdio]}
# end of servers
"""


def test_adding_to_a_missing_file_creates_it(tmp_path: Path) -> None:
    path = tmp_path / ".ironhive" / "plugins.yaml"
    server = NewServer(name="fs", command="npx", args=("-y", "server", "3001"), env={"TOKEN": "${T}", "N": "1"})
    assert add_server(path, server) is False
    entry = load_plugins_file(path).plugins["fs"]
    assert (entry.command, entry.args, entry.env) == ("npx", ["-y", "server", "3001"], {"TOKEN": "${T}", "N": "1"})


def test_adding_keeps_comments_order_and_indentation(tmp_path: Path) -> None:
    path = tmp_path / "plugins.yaml"
    path.write_text(COMMENTED)
    add_server(path, NewServer(name="web", transport="sse", url="http://h:1/sse", headers={"Authorization": "B x"}))
    text = path.read_text()
    assert text.startswith(COMMENTED.removesuffix("# end of servers\n"))
    assert text.endswith("    web:\n        transport: sse\n        url: http://h:1/sse\n"
                         "        headers:\n            Authorization: \"B x\"\n# end of servers\n")  # fmt: skip
    assert list(load_plugins_file(path).plugins) == ["docs", "everything", "web"]


def test_a_name_already_there_is_refused_unless_forced_and_then_replaced_in_place(tmp_path: Path) -> None:
    path = tmp_path / "plugins.yaml"
    path.write_text(COMMENTED)
    with pytest.raises(UserError, match="already there"):
        add_server(path, NewServer(name="docs", command="x"))
    assert path.read_text() == COMMENTED
    assert add_server(path, NewServer(name="docs", command="x"), force=True) is True
    text = path.read_text()
    assert "    # docs first\n    docs:\n        transport: stdio\n        command: x\n\n    # the big one" in text
    assert list(load_plugins_file(path).plugins) == ["docs", "everything"]


def test_removing_takes_the_entry_and_its_comment_and_nothing_else(tmp_path: Path) -> None:
    path = tmp_path / "plugins.yaml"
    path.write_text(COMMENTED)
    assert remove_server(path, "everything") is True
    assert path.read_text() == COMMENTED.replace("    # the big one\n    everything: {command: mcp-server-everything, "
                                                 "args: [stdio]}\n", "")  # fmt: skip
    assert remove_server(path, "everything") is False
    assert remove_server(tmp_path / "missing.yaml", "docs") is False


def test_an_entry_that_would_not_validate_leaves_the_file_alone(tmp_path: Path) -> None:
    path = tmp_path / "plugins.yaml"
    path.write_text(COMMENTED)
    with pytest.raises(UserError, match="url"):
        add_server(path, NewServer(name="web", transport="http"))
    with pytest.raises(UserError, match="server name"):
        add_server(path, NewServer(name="a__b", command="x"))
    assert path.read_text() == COMMENTED
    assert [p.name for p in tmp_path.iterdir()] == ["plugins.yaml"]


def test_an_empty_inline_mapping_is_unfolded(tmp_path: Path) -> None:
    path = tmp_path / "plugins.yaml"
    path.write_text("plugins: {}  # none yet\n")
    add_server(path, NewServer(name="a", command="true"))
    assert path.read_text() == 'plugins:\n  a:\n    transport: stdio\n    command: "true"\n'


def test_the_repositorys_own_example_round_trips(tmp_path: Path) -> None:
    example = Path(__file__).resolve().parents[3] / ".ironhive" / "plugins.yaml"
    path = tmp_path / "plugins.yaml"
    path.write_text(example.read_text())
    add_server(path, NewServer(name="extra", command="x", args=("a",)))
    assert path.read_text().startswith(example.read_text().rstrip("\n") + "\n  extra:\n")
    remove_server(path, "extra")
    assert path.read_text() == example.read_text()
    remove_server(path, "everything-http")
    text = path.read_text()
    assert "everything-http" not in text and "Streamable HTTP" not in text and "\n\n\n" not in text
    assert list(load_plugins_file(path).plugins) == ["everything", "everything-sse"]
