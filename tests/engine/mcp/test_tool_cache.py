"""The MCP tool cache's file: private, keyed by the launch, and ignored when it is not what hive wrote."""

from __future__ import annotations

from pathlib import Path

from msgspec.structs import replace

from engine.mcp.config import ServerConfig
from engine.mcp.tool_cache import MAX_FILE_BYTES, KnownTools, ServerTool, cache_file, read_known, remember

KNOWN = KnownTools(
    server_name="demo",
    server_version="1.2",
    tools=(ServerTool(name="echo", description="Echo", input_schema={"type": "object"}, read_only=True),),
    resources=("demo://a",),
)


def server(tmp_path: Path, *args: str) -> ServerConfig:
    return ServerConfig(
        name="demo", transport="stdio", source=tmp_path / "plugins.yaml", command="demo-server", args=args
    )


def test_a_listing_is_kept_privately_and_read_back(tmp_path: Path, isolated_hive: Path) -> None:
    remember(server(tmp_path), KNOWN)

    assert read_known(server(tmp_path)) == KNOWN
    assert cache_file(server(tmp_path)).parent == isolated_hive / "cache" / "mcp-tools"
    assert cache_file(server(tmp_path)).stat().st_mode & 0o777 == 0o600


def test_a_changed_launch_is_a_server_never_seen_and_a_timeout_is_not(tmp_path: Path) -> None:
    remember(server(tmp_path, "--old"), KNOWN)

    assert read_known(server(tmp_path, "--new")) is None
    assert read_known(replace(server(tmp_path, "--old"), startup_timeout=5.0, include_tools=("e*",))) == KNOWN


def test_a_damaged_foreign_or_oversized_file_is_ignored(tmp_path: Path) -> None:
    file = cache_file(server(tmp_path))
    remember(server(tmp_path), KNOWN)
    for damaged in (b"{not json", b'{"format": 99, "tools": []}', b'{"tools": "none"}', b" " * (MAX_FILE_BYTES + 1)):
        file.write_bytes(damaged)
        assert read_known(server(tmp_path)) is None
    file.unlink()
    file.mkdir()  # not a file at all
    assert read_known(server(tmp_path)) is None
