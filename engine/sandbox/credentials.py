"""Which paths hold secrets: credential stores in the user's home, and secret files in a project."""

from __future__ import annotations

import os
from pathlib import Path

HOME_CREDENTIALS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".yarnrc",
    ".pypirc",
    ".gem/credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".terraform.d/credentials.tfrc.json",
    ".vault-token",
    ".pgpass",
    ".my.cnf",
    ".s3cfg",
    ".boto",
    ".oci",
    ".password-store",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".config/git/credentials",
    ".config/rclone",
    ".config/op",
    ".config/doctl",
    ".config/github-copilot",
    ".local/share/keyrings",
    ".codex",
    ".claude",
    ".claude.json",
)
"""Relative to the home folder. ``.docker`` whole: besides config.json it may hold a daemon socket."""


def home_credentials(home: Path) -> tuple[str, ...]:
    """The credential stores under ``home``, whether or not they exist (strings: checked on every command)."""
    prefix = os.path.join(home, "")
    return tuple(prefix + name for name in HOME_CREDENTIALS)


def is_secret_file_name(name: str) -> bool:
    """``.env``, ``.env.local``, ``.envrc``...: files that hold a project's secrets."""
    return name.startswith(".env")


def is_secret_dir_name(name: str) -> bool:
    """A ``secrets`` folder: everything below it is hidden."""
    return name == "secrets"
