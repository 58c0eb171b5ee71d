"""``@`` mentions: a quoted name may hold spaces and any letters; the quotes are not part of the path."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hive_cli.repl.mentions import attach_mentions, mentioned


def test_quoted_mentions_keep_spaces_and_non_ascii_letters() -> None:
    text = """see @"my file ü.txt", @'other one.md' and @plain.py; mail me@example.com; @"unclosed"""
    assert mentioned(text) == ["my file ü.txt", "other one.md", "plain.py;"]


async def _no_objection(name: str) -> str | None:
    return None


def test_a_quoted_name_is_attached_and_a_missing_one_is_said_as_written(tmp_path: Path) -> None:
    (tmp_path / "my file ü.txt").write_text("UMLAUT-CONTENT\n", encoding="utf-8")
    text = 'read @"my file ü.txt" and @"no such.txt"'
    prompt, refused, _ = asyncio.run(attach_mentions(text, tmp_path, _no_objection))
    assert '<file path="my file ü.txt">\nUMLAUT-CONTENT\n' in prompt
    assert refused == ['@"no such.txt": no such file, not attached']
