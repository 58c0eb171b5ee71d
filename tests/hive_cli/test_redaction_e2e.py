"""Committed secrets read back through allowed git reads reach the model redacted, and the log says so.

A `.env` that was committed and then removed is still in the history; `git log -p` and
`git show HEAD~1:.env` print it from inside the (real) sandbox, which hides the file but not git's
objects. The scripted model asks for both; the server must never receive a secret, nor may the
session file keep one.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.fake_credentials import FAKE_CREDENTIALS, SECRET_VARIABLE
from tests.support.llm_server import LLMServer, call, text, tool_calls

COMMITTED = [c for c in FAKE_CREDENTIALS if c.name in ("aws-access-key-id", "github-classic", "postgres-url")]


def git(project: Path, *args: str) -> None:
    identity = ("-c", "user.name=Test", "-c", "user.email=test@example.invalid")
    subprocess.run(["git", *identity, *args], cwd=project, check=True, capture_output=True)


def project_with_a_removed_env_file(project: Path) -> None:
    """A repository whose first commit holds a `.env` (and a file with a secret variable's value), removed after."""
    project.mkdir()
    git(project, "init", "-q")
    (project / ".env").write_text("".join(c.text + "\n" for c in COMMITTED))
    (project / "deploy.cfg").write_text(f"service_token_value: {SECRET_VARIABLE[1]}\n")
    git(project, "add", ".env", "deploy.cfg")
    git(project, "commit", "-q", "-m", "configuration")
    git(project, "rm", "-q", "--cached", ".env", "deploy.cfg")
    git(project, "commit", "-q", "-m", "keep the configuration out of git")


def test_secrets_from_git_history_reach_the_model_redacted(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    project = tmp_path / "project"
    project_with_a_removed_env_file(project)
    llm_server.script(
        tool_calls(call("execute_command", {"command": "git log -p"}, id="log")),
        tool_calls(call("execute_command", {"command": "git show HEAD~1:.env"}, id="show")),
        text("The history held credentials."),
    )

    done = run_hive(
        *("run", "look through the history", "-m", "openai/test-model", "--api-base", llm_server.base_url),
        cwd=project,
        **{SECRET_VARIABLE[0]: SECRET_VARIABLE[1]},
    )

    assert done.returncode == 0, done.stderr
    secrets = [c.secret for c in COMMITTED] + [SECRET_VARIABLE[1]]
    sent = b"".join(request.body for request in llm_server.chat_requests)
    assert len(llm_server.chat_requests) == 3
    for secret in secrets:
        assert secret.encode() not in sent
    log_result = llm_server.chat_requests[1].messages[-1]["content"]
    assert "[redacted: AWSKeyDetector]" in log_result and "[redacted: GitHubTokenDetector]" in log_result
    assert "postgres://app:[redacted: BasicAuthDetector]@db.internal" in log_result
    assert f"[redacted: ${SECRET_VARIABLE[0]}]" in log_result
    assert "keep the configuration out of git" in log_result  # the rest of the output is untouched
    log_line, show_line = [line for line in done.stderr.splitlines() if "✓ execute_command" in line]
    assert "redacted 8 secrets" in log_line  # each secret twice: added, then removed
    assert "redacted 3 secrets" in show_line
    sessions = list((isolated_hive / "data" / "sessions").glob("*.jsonl"))
    assert len(sessions) == 1
    saved = sessions[0].read_text()
    assert "[redacted: GitHubTokenDetector]" in saved
    for secret in secrets:
        assert secret not in saved
