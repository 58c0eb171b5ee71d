"""Fake credentials of realistic shape, for the redaction tests and benchmark.

Each is put together from pieces, so that no secret scanner run over hive's own source takes this
file for a leak; none of them was ever valid.
"""

from __future__ import annotations

from msgspec import Struct

_MIX = "Hq8Kd2LmQp4Rs7TuVw1YzAb3Cd5Ef7Gh9IjKl1MnOp3QrSt5UvWx7YzAb3Cd5Ef7Gh9IjKl1MnOp3QrSt5UvWx7Yz"


class FakeCredential(Struct, frozen=True):
    """A credential as a tool might print it: ``text``, of which ``secret`` must not reach the model."""

    name: str
    text: str
    secret: str


def _fake(name: str, before: str, secret: str, after: str = "") -> FakeCredential:
    return FakeCredential(name, before + secret + after, secret)


_JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ"
    + ".c2lnbmF0dXJl"
    + _MIX[:20]
)
_SSH_BODY = "\n".join(
    (
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        "QyNTUxOQAAACB" + _MIX[:57],
        "AAAAJg" + _MIX[3:67],
    )
)

FAKE_CREDENTIALS = (
    _fake("aws-access-key-id", "aws_access_key_id = ", "AKIA" + "QYLPMN5HFIQR7XYB"),
    _fake("aws-secret-access-key", "aws_secret_access_key = ", "9Zk2yQhLr7Vt0cPwXs4N" + "bEoJ3uGa8fKdM1iHqR6T"),
    _fake("github-classic", "token: ", "ghp" + "_R8fJ2kLmQ9sT4vW6xY1zA3bC5dE7gH0iJ2kL"),
    _fake("github-fine-grained", "GH_TOKEN=", "github" + "_pat_11ABCDEFG0" + _MIX[:12] + "_" + _MIX[12:71]),
    _fake("gitlab", "GITLAB_TOKEN=", "glpat" + "-Xa9Kd2LmQp4Rs7TuVw1Y"),
    _fake("slack-bot", "SLACK=", "xoxb" + "-2048193742-2048193742981-Hq8Kd2LmQp4Rs7TuVw1YzAb3"),
    _fake("stripe-live", "stripe.api_key = '", "sk" + "_live_51HqKd2LmQp4Rs7TuVw1YzAb3Cd5Ef7Gh9Ij", "'"),
    _fake("openai", "OPENAI_API_KEY=", "sk-proj-" + _MIX[:74] + "T3Blbk" + "FJ" + _MIX[10:84]),
    _fake("anthropic", "ANTHROPIC_API_KEY=", "sk-ant" + "-api03-" + _MIX[:80] + _MIX[:13] + "AA"),
    _fake("npm", "//registry.example.org/:_authToken=", "npm" + "_Hq8Kd2LmQp4Rs7TuVw1YzAb3Cd5Ef7Gh9IjK"),
    _fake("pypi", "password = ", "pypi-" + "AgEIcHlwaS5vcmc" + _MIX[:70]),
    _fake(
        "openssh-private-key",
        "",
        "-----BEGIN OPENSSH " + "PRIVATE KEY-----\n" + _SSH_BODY + "\n-----END OPENSSH " + "PRIVATE KEY-----",
    ),
    _fake("jwt", "Authorization: Bearer ", _JWT),
    _fake("postgres-url", "DATABASE_URL=postgres://app:", "Xk93mPq2Lw", "@db.internal:5432/app"),
    _fake("redis-url", "REDIS_URL=redis://:", "s3cr3tPassw0rdZ", "@cache.internal:6379/0"),
    _fake("query-password", "DATABASE_URL=mysql://db.internal/app?user=app&password=", "Xk93mPq2Lw77"),
)
"""One of each kind the redaction must catch."""

SECRET_VARIABLE = ("DEPLOY_SERVICE_TOKEN", "plain-words-" + "but-secret-4711")
"""A secret variable whose value no rule knows by its shape: only the environment says it is secret."""

MORE_CREDENTIALS = (
    _fake("google-api-key", "key=", "AIza" + "SyHq8Kd2LmQp4Rs7TuVw1YzAb3Cd5Ef7Gh9"),
    _fake("huggingface", "HF_TOKEN=", "hf" + "_Hq8Kd2LmQp4Rs7TuVw1YzAb3Cd5Ef7GhIjK"),
    _fake("azure-storage", "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=", _MIX[:86] + "==", ";"),
    _fake("netrc", "machine example.org login octocat password ", "ghs" + "_Hq8Kd2LmQp4Rs7TuVw1YzAb3Cd5Ef7Gh9IjKl"),
    _fake("gitlab-ci-jwt", "CI_JOB_JWT=", _JWT.replace("c2lnbmF0dXJl", "c2lnbmF0dXJm")),
    _fake("password-with-ampersand", 'db_password = "', "Tr0ub4dor&3horse", '"'),
)
"""Further shapes (two of them caught only by hive's own rules: Google, Hugging Face), also in the benchmark's recall."""
