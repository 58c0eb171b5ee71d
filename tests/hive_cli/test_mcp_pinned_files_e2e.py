"""An approved project server whose code changes does not start until approved again: real hive, real server."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text
from tests.support.mcp_servers import PY_SERVER


def project(tmp_path: Path, args: list[str]) -> Path:
    root = tmp_path / "clone"
    (root / ".git").mkdir(parents=True)
    servers = {"mcpServers": {"py": {"command": sys.executable, "args": args}}}
    (root / ".mcp.json").write_text(json.dumps(servers))
    return root


def session(llm_server: LLMServer, root: Path) -> tuple[list[str], list[str]]:
    """One ``hive run``: the tools the model was offered and the notices hive gave."""
    llm_server.script(text("Hi."))
    done = run_hive(
        *("run", "hello", "-o", "json", "-m", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(root))
    )
    assert done.returncode == 0, done.stderr
    request = llm_server.chat_requests[-1].json
    return [tool["function"]["name"] for tool in request.get("tools", [])], json.loads(done.stdout)["notices"]


def approve(root: Path, *names: str) -> str:
    done = run_hive("mcp", "approve", *names, "-C", str(root))
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_changed_script_is_not_started_until_approved_again(llm_server: LLMServer, tmp_path: Path) -> None:
    root = project(tmp_path, ["srv.py"])
    shutil.copy(PY_SERVER, root / "srv.py")
    listed = approve(root)
    assert "py: " in listed and "srv.py (sha256:" in listed  # the person sees the file and its digest
    assert approve(root, "py").startswith("Approved MCP server py:")
    tools, notices = session(llm_server, root)
    assert "mcp__py__peek" in tools and notices == []

    with (root / "srv.py").open("a") as script:  # what a `git pull` or a sandboxed command could do
        script.write("\nprint('changed')\n")

    tools, notices = session(llm_server, root)
    assert "mcp__py__peek" not in tools
    assert any("srv.py changed since you approved it" in n and "hive mcp approve py" in n for n in notices), notices
    assert "changed since you approved it" in approve(root)
    approve(root, "py")
    tools, notices = session(llm_server, root)
    assert "mcp__py__peek" in tools and notices == []


def test_a_module_server_asks_again_when_any_file_of_its_package_changes(llm_server: LLMServer, tmp_path: Path) -> None:
    root = project(tmp_path, ["-m", "pkg.srv"])
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "helper.py").write_text("NAME = 'helper'\n")
    shutil.copy(PY_SERVER, root / "pkg" / "srv.py")
    assert "pkg/ (sha256:" in approve(root)
    approve(root, "py")
    assert "mcp__py__peek" in session(llm_server, root)[0]
    assert "mcp__py__peek" in session(llm_server, root)[0]  # what Python caches as it runs changes nothing

    (root / "pkg" / "helper.py").write_text("NAME = 'something else'\n")

    tools, notices = session(llm_server, root)
    assert "mcp__py__peek" not in tools
    assert any("pkg/ changed since you approved it" in notice for notice in notices), notices
    approve(root, "py")
    assert "mcp__py__peek" in session(llm_server, root)[0]
