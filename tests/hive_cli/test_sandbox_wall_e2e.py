"""The sandbox wall end to end: ``hive run`` without ``--yes``, a scripted model, canaries in a fake home.

The model runs ``make`` targets (allowed without a question: they run in the sandbox) that try to
read the home's secrets, the project's secret files and secret variables. Nothing of them reaches
the model server, and not because the redaction of tool output caught it; the toolchain the allow-list shows and the variable the user's ``sandbox.env``
names do. A project whose walk stops early gets its command asked, and says why.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls

CANARY = "canary-7f3a9e"
HOME_SECRETS = (
    ".bash_history",
    "work/other-project/.env",
    ".m2/settings.xml",
    ".gradle/gradle.properties",
    ".pulumi/credentials.json",
    ".cargo/credentials.toml",
)
PROJECT_SECRETS = ("id_rsa", "certs/server.pem", ".netrc", "credentials.json", "terraform.tfstate", ".env")
SECRET_VARIABLES = {
    "REDIS_URL": f"redis://:{CANARY}-1@cache:6379/0",
    "AZURE_STORAGE_CONNECTION_STRING": f"DefaultEndpointsProtocol=https;AccountKey={CANARY}-2==",
    "CI_JOB_JWT": f"eyJhbGciOiJSUzI1NiJ9.{CANARY}-3.sig",
    "DATABASE_URL": f"postgres://db/app?password={CANARY}-4",
    "MY_THING": f"https://host/x?password={CANARY}-5",
}


def write(path: Path, content: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    return path


@pytest.fixture
def world() -> Iterator[tuple[Path, Path]]:
    """A fake home and a project in it, under /var/tmp (inside the sandbox /tmp is a private one)."""
    root = Path(tempfile.mkdtemp(prefix="hive-wall-", dir="/var/tmp")).resolve()
    home, project = root / "home", root / "home" / "work" / "project"
    for relative in HOME_SECRETS:
        write(home / relative, f"{CANARY}-home {relative}\n")
    write(home / ".cargo" / "bin" / "fake-cargo", "#!/bin/sh\necho fake cargo builds\n").chmod(0o755)
    for relative in PROJECT_SECRETS:
        write(project / relative, f"{CANARY}-project {relative}\n")
    home_files = " ".join(f"$(HOME)/{relative}" for relative in HOME_SECRETS)
    write(
        project / "Makefile",
        f"leak:\n\t-cat {home_files} {' '.join(PROJECT_SECRETS)}\n\t-env\n\t-ls -A $(HOME) ..\n"
        "build:\n\t$(HOME)/.cargo/bin/fake-cargo\n\techo deploying to $$DEPLOY_TARGET\n",
    )
    yield home, project
    shutil.rmtree(root, ignore_errors=True)


def hive(llm_server: LLMServer, home: Path, project: Path, *steps: str) -> tuple[list[dict[str, str]], str]:
    """Run the steps as commands of a scripted model; the calls' outcomes and hive's notices."""
    llm_server.script(*[tool_calls(call("execute_command", {"command": step})) for step in steps], text("done"))
    done = run_hive(
        "run", "build it", "--model", "openai/test-model", "--api-base", llm_server.base_url, "-o", "json",
        "-C", str(project), HOME=str(home), DEPLOY_TARGET="staging-target", **SECRET_VARIABLES,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    sent = "\n".join(request.body.decode("utf-8", "replace") for request in llm_server.requests)
    assert CANARY not in sent
    report = json.loads(done.stdout)
    calls = [{key: str(value) for key, value in outcome.items()} for outcome in report["tool_calls"]]
    return calls, "\n".join(report["notices"])


def test_nothing_of_the_home_the_project_secrets_or_secret_variables_reaches_the_model(
    llm_server: LLMServer, world: tuple[Path, Path], isolated_hive: Path
) -> None:
    home, project = world
    write(isolated_hive / "config" / "settings.yaml", "sandbox:\n  env: [DEPLOY_TARGET]\n")
    (leak, build), _ = hive(llm_server, home, project, "make leak", "make build")
    assert leak["success"] == "True", leak["output"]
    assert leak["output"].count("No such file or directory") == len(HOME_SECRETS)
    # the sandbox kept them out, not the redaction of tool output: no variable of theirs, nothing redacted
    assert not [name for name in SECRET_VARIABLES if name in leak["output"]] and "redacted" not in leak["output"]
    assert build["success"] == "True", build["output"]
    assert "fake cargo builds" in build["output"] and "deploying to staging-target" in build["output"]


def test_a_project_cannot_widen_what_commands_read_or_get(
    llm_server: LLMServer, world: tuple[Path, Path], isolated_hive: Path
) -> None:
    home, project = world
    write(project / ".ironhive" / "settings.yaml", "sandbox:\n  read_paths: ['~']\n  env: [REDIS_URL, DEPLOY_TARGET]\n")
    (leak, build), notices = hive(llm_server, home, project, "make leak", "make build")
    assert "read path ~" in notices and "env REDIS_URL" in notices and "env DEPLOY_TARGET" in notices
    assert leak["output"].count("No such file or directory") == len(HOME_SECRETS)
    assert "deploying to" in build["output"] and "staging-target" not in build["output"]


def test_a_command_in_a_project_the_walk_cannot_cover_is_asked_and_says_why(
    llm_server: LLMServer, world: tuple[Path, Path]
) -> None:
    home, project = world
    bulk = project / "data"
    bulk.mkdir()
    for index in range(20_001):
        (bulk / f"f{index}").touch()
    (leak,), _ = hive(llm_server, home, project, "make leak")
    assert leak["success"] == "False"
    assert "stopped at 20,000 entries" in leak["output"] and "needs approval" in leak["output"], leak
