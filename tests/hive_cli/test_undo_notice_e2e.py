"""An edit that checkpoints cannot undo is said before it runs: in the approval question and in the timeline.

A real `hive run` against the scripted model server, with the user's ``checkpoints.max_file_bytes``
lowered so that a small file is "over the limit".
"""

from __future__ import annotations

from pathlib import Path

from engine.paths import user_config_dir
from tests.hive_cli.test_stream_approvals_e2e import hive_conversation
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls

NOTICE = "this change cannot be undone: big.txt is 2,000 bytes, over the checkpoint limit (checkpoints.max_file_bytes)"
EDIT_BIG = call("edit_file", {"path": "big.txt", "old_string": "line 7\n", "new_string": "seven\n"}, id="big")
EDIT_SMALL = call("edit_file", {"path": "small.txt", "old_string": "a", "new_string": "b"}, id="small")


def _files(project: Path) -> None:
    settings = user_config_dir() / "settings.yaml"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text("checkpoints:\n  max_file_bytes: 1000\n")
    lines = "".join(f"line {n}\n" for n in range(1, 201))
    (project / "big.txt").write_text(lines + "x" * (2000 - len(lines)))
    assert (project / "big.txt").stat().st_size == 2000
    (project / "small.txt").write_text("a\n")


def test_the_approval_question_and_the_progress_say_the_edit_cannot_be_undone(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    _files(tmp_path)
    llm_server.script(tool_calls(EDIT_BIG), tool_calls(EDIT_SMALL), text("Edited."))
    with hive_conversation(llm_server, tmp_path) as hive:
        hive.send({"type": "user_message", "text": "edit both"})
        big = hive.until("approval_requested")
        hive.send({"type": "approval", "request_id": big["request_id"], "decision": "allow"})
        progress = hive.until("tool_progress")
        finished = hive.until("tool_call_finished")
        small = hive.until("approval_requested")
        hive.send({"type": "approval", "request_id": small["request_id"], "decision": "allow"})
        hive.until("run_finished")
        assert hive.end() == 0

    assert (big["tool"], big["warning"]) == ("edit_file", NOTICE)
    assert (progress["call_id"], progress["status"]) == ("big", NOTICE)
    assert finished["success"] is True and finished["output"].endswith(f"\n[Checkpoint: {NOTICE}.]")
    assert small["tool"] == "edit_file" and "warning" not in small
    assert "seven\n" in (tmp_path / "big.txt").read_text()
    refused = run_hive("undo", "--yes", "-C", str(tmp_path))
    assert refused.returncode != 0
    assert "big.txt: its earlier state was not kept (larger than max_file_bytes (1000 bytes))" in refused.stderr


def test_the_timeline_of_a_run_says_it_under_the_call(llm_server: LLMServer, tmp_path: Path) -> None:
    _files(tmp_path)
    llm_server.script(tool_calls(EDIT_BIG), text("Edited."))

    done = run_hive(
        "run", "edit it", "--yes", "--model", "openai/test-model", "--api-base", llm_server.base_url,
        "--api-key", "sk-test", "-C", str(tmp_path),
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    started = lines.index("→ edit_file big.txt")
    assert lines[started + 1] == f"    {NOTICE}"
    assert lines[started + 2].startswith("  ✓ edit_file")
