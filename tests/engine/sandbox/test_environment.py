"""The child's environment: the documented names pass (their values screened), everything else is dropped."""

from __future__ import annotations

from typing import Any

import pytest

from engine.git_environment import NEUTRAL_GIT_CONFIG, NEUTRAL_GIT_VARIABLES
from engine.sandbox.environment import is_secret, sandbox_environment


def listed(*args: Any, **kwargs: Any) -> dict[str, str]:
    """The environment a sandboxed command gets, without the variables that neutralise git (tested apart)."""
    return {
        name: value
        for name, value in sandbox_environment(*args, **kwargs).items()
        if not name.startswith("GIT_CONFIG_") and name not in NEUTRAL_GIT_VARIABLES
    }


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


def test_only_listed_names_pass_and_extras_go_on_top() -> None:
    env = {"PATH": "/bin", "OPENAI_API_KEY": "sk-x", "LANG": "C.UTF-8", "LC_ALL": "C", "MY_THING": "x", "PAGER": "less"}
    assert listed(env, {"TMPDIR": "/tmp", "PAGER": "cat"}) == {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C",
        "TMPDIR": "/tmp",
        "PAGER": "cat",
    }


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("REDIS_URL", "redis://:pw-1234567@cache:6379/0"),
        ("AZURE_STORAGE_CONNECTION_STRING", "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=abc123=="),
        ("CI_JOB_JWT", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.sig"),
        ("DATABASE_URL", "postgres://db/app?user=app&password=pw-1234567"),
        ("MY_THING", "https://host/x?password=pw-1234567"),
        ("SSH_AUTH_SOCK", "/run/user/0/ssh-agent.sock"),
        ("DISPLAY", ":0"),
        ("DBUS_SESSION_BUS_ADDRESS", "unix:path=/run/user/0/bus"),
        ("GIT_ASKPASS", "/usr/bin/askpass"),
        ("LD_PRELOAD", "/var/tmp/evil.so"),
    ],
)
def test_anything_not_on_the_list_is_dropped_whatever_it_is_called(name: str, value: str) -> None:
    assert listed({name: value, "PATH": "/bin"}) == {"PATH": "/bin"}


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("PIP_INDEX_URL", "https://me:pw-1234567@pypi.example.invalid/simple"),
        ("NPM_CONFIG__AUTHTOKEN", "npm_abcdefghijklmnop"),
        ("UV_INDEX_PRIVATE_PASSWORD", "pw-1234567"),
        ("GOPROXY", "https://me:pw-1234567@proxy.example.invalid"),
    ],
)
def test_a_listed_name_with_a_secret_in_its_name_or_value_is_dropped(name: str, value: str) -> None:
    assert listed({name: value}) == {}


def test_build_variables_of_each_group_pass() -> None:
    env = {
        "VIRTUAL_ENV": "/p/.venv",
        "PIP_INDEX_URL": "https://pypi.example.invalid/simple",
        "NODE_OPTIONS": "--max-old-space-size=4096",
        "npm_config_cache": "/c/npm",
        "CARGO_HOME": "/c/cargo",
        "GOFLAGS": "-mod=mod",
        "JAVA_HOME": "/usr/lib/jvm/java-17",
        "GEM_HOME": "/g",
        "CMAKE_BUILD_TYPE": "Release",
        "SSL_CERT_FILE": "/etc/ssl/certs/ca.crt",
    }
    assert listed(env) == env


def test_proxies_pass_only_with_the_network_on() -> None:
    env = {"HTTPS_PROXY": "http://proxy:3128", "no_proxy": "localhost", "HTTP_PROXY": "http://u:pw@proxy:3128"}
    assert listed(env) == {}
    assert listed(env, network=True) == {"HTTPS_PROXY": "http://proxy:3128", "no_proxy": "localhost"}


def test_the_users_own_names_pass_as_they_are() -> None:
    env = {"DEPLOY_TOKEN": "tok-1234567", "OTHER_TOKEN": "tok-7654321", "MY_SETTING": "x"}
    assert listed(env, passed=("DEPLOY_TOKEN", "MY_SETTING")) == {
        "DEPLOY_TOKEN": "tok-1234567",
        "MY_SETTING": "x",
    }


def test_every_command_gets_git_with_the_repositorys_fixed_name_programs_switched_off() -> None:
    env = sandbox_environment({"PATH": "/bin", "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "x.y"})
    given = [(env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"]) for i in range(int(env["GIT_CONFIG_COUNT"]))]
    assert given == list(NEUTRAL_GIT_CONFIG)  # the project's own GIT_CONFIG_* is not on the list
    assert env["GIT_PAGER"] == "cat" and env["GIT_TERMINAL_PROMPT"] == "0"


def test_the_users_own_git_configuration_in_the_environment_stays_and_comes_first() -> None:
    env = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.editor", "GIT_CONFIG_VALUE_0": "vim"}
    given = sandbox_environment(env, passed=tuple(env))
    pairs = [
        (given[f"GIT_CONFIG_KEY_{i}"], given[f"GIT_CONFIG_VALUE_{i}"]) for i in range(int(given["GIT_CONFIG_COUNT"]))
    ]
    assert pairs == [("core.editor", "vim"), *NEUTRAL_GIT_CONFIG]
    assert (
        sandbox_environment(given, passed=tuple(given)) == given
    )  # applied twice (a hook, then its sandbox): the same
