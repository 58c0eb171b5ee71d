"""acplint (the ACP linter on PyPI, pinned) run against ``hive acp`` with the suite's scripted model server.

acplint 0.1.0 checks against its own, older copy of the protocol's schema; the checks it fails for that
reason alone are listed in ``DISAGREEMENTS`` with what the protocol says. Every other check must pass.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.support.cli import hive_env
from tests.support.llm_server import LLMServer, text

ACPLINT = Path(sys.executable).with_name("acplint")

DISAGREEMENTS = {
    # The protocol's version is the integer 1 (the SDK's PROTOCOL_VERSION, the schema's uint16); acplint wants "1".
    "initialize_v1": "protocolVersion",
    "protocol_version_returned": "protocolVersion",
    "schema_initialize": "protocolVersion",
    # A config option is named by `name` in the schema; acplint wants a `label`.
    "new_session": "label",
    "schema_session_new": "label",
    # acplint sends session/prompt with `content`; the schema's field is `prompt`, so hive answers invalid params
    # and acplint never sees the turn it meant to start.
    "session_update_received": "No session/update",
    "agent_message_chunk_received": "No agentMessageChunk",
    "prompt_stop_reason": "No stopReason",
}


def test_acplint_passes_every_check_but_those_of_its_outdated_schema(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(*[text("hello")] * 40)
    report = tmp_path / "acplint.json"
    agent_args = f"-m hive_cli acp --model openai/test-model --api-base {llm_server.base_url} --api-key sk-test"
    subprocess.run(
        [str(ACPLINT), "--agent", sys.executable, "--agent-args", agent_args, "--cwd", str(tmp_path)]
        + ["--output", "json", "--output-file", str(report), "--timeout", "60"],
        cwd=tmp_path,
        env=hive_env(),
        capture_output=True,
        timeout=600,
        check=False,
    )

    results = json.loads(report.read_text())["results"]
    failed = {r["name"]: r["message"] for r in results if r["status"] not in ("PASS", "SKIP")}
    assert set(failed) == set(DISAGREEMENTS), json.dumps(failed, indent=1)
    for name, said in DISAGREEMENTS.items():
        assert said in failed[name], (name, failed[name])
    assert sum(r["status"] == "PASS" for r in results) >= 37
