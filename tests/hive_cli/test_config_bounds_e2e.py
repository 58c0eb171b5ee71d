"""`hive run` in a project whose configuration is hostile: one message naming the file, exit 2, no model call.

Before the bounded reader an 8-level alias bomb in settings.yaml took some 10 GB and many minutes;
run_hive's timeout would end this test instead.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text


def alias_bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{n}: &a{n} [{','.join([f'*a{n - 1}'] * 9)}]" for n in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


def hive_run(server: LLMServer, project: Path) -> tuple[int, str]:
    model = ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "k"]
    done = run_hive("run", "hello", *model, "-C", str(project))
    return done.returncode, done.stderr


def test_an_alias_bomb_settings_file_stops_hive_run_with_one_message(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("never asked"))
    settings = tmp_path / ".ironhive" / "settings.yaml"
    settings.parent.mkdir()
    settings.write_text(alias_bomb(8))

    code, stderr = hive_run(llm_server, tmp_path)

    assert code == 2
    assert stderr.strip() == f"hive: {settings}:2: YAML aliases (*name) are not allowed in hive's configuration files"
    assert llm_server.chat_requests == []


def test_a_deeply_nested_permissions_file_stops_hive_run_without_a_traceback(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    llm_server.script(text("never asked"))
    rules = tmp_path / ".ironhive" / "permissions.json"
    rules.parent.mkdir()
    rules.write_text('{"permissions": ' + "[" * 2000 + "]" * 2000 + "}")

    code, stderr = hive_run(llm_server, tmp_path)

    assert code == 2
    assert stderr.strip() == f"hive: {rules}: nested too deeply (more than 32 levels)"
    assert llm_server.chat_requests == []
