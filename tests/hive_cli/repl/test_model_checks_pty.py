"""The REPL says an unknown provider or a missing key at start-up and refuses ``/model`` to one, without
importing litellm (which costs seconds) to find out."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

import pexpect

from tests.support.cli import hive_env
from tests.support.terminal import PROMPT, TIMEOUT, leave_repl, send_line

NO_KEYS = {"GEMINI_API_KEY": "", "GOOGLE_API_KEY": "", "GEMINI_API_BASE": ""}
LITELLM_IMPORTED = re.compile(r"^import time:.*\|\s*litellm\s*$", re.MULTILINE)


def spawn_importtime(*args: str, **env: str) -> tuple[pexpect.spawn, io.StringIO]:
    """The REPL with ``-X importtime`` (each import is a line in the terminal), and everything it shows."""
    child = pexpect.spawn(
        sys.executable,
        ["-X", "importtime", "-m", "hive_cli", *args],
        env=hive_env(TERM="xterm-256color", COLUMNS="100", LINES="30", PROMPT_TOOLKIT_NO_CPR="1", **env),
        encoding="utf-8",
        dimensions=(30, 100),
        timeout=TIMEOUT,
    )
    shown = io.StringIO()
    child.logfile_read = shown
    return child, shown


def test_an_unknown_provider_is_said_at_start_up_without_importing_litellm(tmp_path: Path) -> None:
    child, shown = spawn_importtime("-m", "nosuch/model", "-C", str(tmp_path))
    child.expect("the provider 'nosuch' is unknown")
    send_line(child, "hello")
    child.expect("the provider 'nosuch' is unknown")  # a request says it again, and nothing is sent
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert not LITELLM_IMPORTED.search(shown.getvalue().replace("\r", ""))


def test_a_missing_key_is_said_at_start_up_without_importing_litellm(tmp_path: Path) -> None:
    child, shown = spawn_importtime("-m", "gemini/gemini-2.0-flash", "-C", str(tmp_path), **NO_KEYS)
    child.expect("needs an API key")
    child.expect("GEMINI_API_KEY")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert not LITELLM_IMPORTED.search(shown.getvalue().replace("\r", ""))


def test_model_to_an_unknown_provider_is_refused_and_the_model_stays(tmp_path: Path) -> None:
    child, shown = spawn_importtime("-m", "openai/gpt-4o", "-C", str(tmp_path), OPENAI_API_KEY="sk-test")
    child.expect(PROMPT)
    send_line(child, "/model nosuch/x")
    child.expect("'nosuch/x', but the provider 'nosuch' is unknown")
    child.expect(PROMPT)
    send_line(child, "/model")
    child.expect("model: openai/gpt-4o")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert not LITELLM_IMPORTED.search(shown.getvalue().replace("\r", ""))
