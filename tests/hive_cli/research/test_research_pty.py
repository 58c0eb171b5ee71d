"""`hive research` at a terminal: the live status comes and goes, and the report is printed whole."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer
from tests.support.research_model import ResearchScript, research_args
from tests.support.terminal import exit_status, spawn_hive


def test_a_terminal_gets_the_live_status_then_the_report(llm_server: LLMServer, tmp_path: Path) -> None:
    ResearchScript(judges=['{"score": 0.9, "gaps": []}']).install(llm_server)

    child = spawn_hive("research", "How fast is the Tessel Glacier retreating?", *research_args(llm_server, tmp_path))
    child.expect("read \\[1\\]")
    child.expect("## Sources")
    child.expect("hive: research sufficient")

    assert exit_status(child) == 0
