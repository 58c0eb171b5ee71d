"""Garbage collection waits while hive starts, and runs again once the command is under way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer, call, text, tool_calls

# At exit: whether the collector runs, and how many objects start-up left frozen out of it.
PROBE = """
import atexit, gc, json, os, sys
out = os.environ["HIVE_TEST_GC_OUT"]
atexit.register(lambda: open(out, "w").write(json.dumps([gc.isenabled(), gc.get_freeze_count()])))
sys.argv = ["hive", *sys.argv[1:]]
from hive_cli.main import main
main()
"""


def collector_at_exit(tmp_path: Path, *args: str) -> tuple[bool, int]:
    out = tmp_path / "gc.json"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=hive_env(HIVE_TEST_GC_OUT=str(out)),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    enabled, frozen = json.loads(out.read_text())
    return enabled, frozen


def test_hive_run_collects_again_once_its_session_is_open(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("list_directory", {})), text("Looked."))
    enabled, frozen = collector_at_exit(
        tmp_path, "run", "look", "-o", "json", "-m", "openai/test-model", "--api-base", llm_server.base_url
    )
    assert enabled
    assert frozen > 10_000  # start-up's modules, classes and schemas, left out of every later collection


def test_any_other_command_collects_from_the_start(tmp_path: Path) -> None:
    enabled, frozen = collector_at_exit(tmp_path, "skills", "list")
    assert enabled and frozen > 0
