"""The child's environment: secrets out, everything else kept."""

from __future__ import annotations

import pytest

from engine.sandbox.environment import is_secret, sandbox_environment


@pytest.mark.parametrize(
    "name",
    [
        "HIVE_API_KEY",
        "OPENAI_API_KEY",
        "anthropic_api_key",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "NPM_TOKEN",
        "AWS_ACCESS_KEY_ID",
        "AWS_SECRET_ACCESS_KEY",
        "AWS_SESSION_TOKEN",
        "AZURE_CLIENT_SECRET",
        "DB_PASSWORD",
        "PGPASSWORD",
        "MYSQL_PWD",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "SSH_AUTH_SOCK",
        "SENTRY_DSN",
        "STRIPE_KEY",
        "SLACK_WEBHOOK_URL",
        "Private_Key",
        "GPG_PASSPHRASE",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret(name)


@pytest.mark.parametrize(
    "name",
    ["PATH", "HOME", "LANG", "PWD", "OLDPWD", "TERM", "TOKENIZERS_PARALLELISM", "XAUTHORITY", "KEYBOARD", "PAGER"],
)
def test_ordinary_names(name: str) -> None:
    assert not is_secret(name, "/usr/bin")


@pytest.mark.parametrize(
    "value",
    [
        "postgres://app:hunter2@db:5432/app",
        "https://abc123@o1.ingest.example.invalid/1",
        "sk-proj-abcdefghijklmnop",
        "ghp_abcdefghijklmnopqrst",
        "AKIAABCDEFGHIJKLMNOP",
    ],
)
def test_secret_values_under_any_name(value: str) -> None:
    assert is_secret("SOMETHING", value)


def test_ordinary_values() -> None:
    assert not is_secret("URL", "http://localhost:8080/@home")
    assert not is_secret("GIT_SSH_COMMAND", "ssh -o BatchMode=yes")


def test_the_environment_keeps_the_rest_and_adds_extras() -> None:
    env = {"PATH": "/bin", "OPENAI_API_KEY": "sk-x", "LANG": "C.UTF-8", "PAGER": "cat"}
    assert sandbox_environment(env, {"TMPDIR": "/tmp"}) == {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "PAGER": "cat",
        "TMPDIR": "/tmp",
    }
