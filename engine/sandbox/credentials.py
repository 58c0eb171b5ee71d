"""The credential stores in a user's home, hidden from sandboxed commands wherever the home itself is not.

A project's secret files are :mod:`engine.secret_files`, the list the read rules use too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
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


SOCKET_FOLDERS = (
    "/var/lib/lxd",
    "/var/snap/lxd/common/lxd",
    "/var/lib/incus",
    "/var/lib/docker",
    "/var/run/docker.sock",
    "/var/run/podman",
)
"""Places outside ``/run`` and the home where daemons listening on unix sockets keep them (``/var/run``
is usually a link to the private ``/run``; where it is a folder the sandbox makes it private too)."""


def socket_places(env: Mapping[str, str]) -> tuple[Path, ...]:
    """The existing socket places, and the session's runtime folder (``$XDG_RUNTIME_DIR``) wherever it is."""
    runtime = env.get("XDG_RUNTIME_DIR", "")
    candidates = (*SOCKET_FOLDERS, *([runtime] if os.path.isabs(runtime) else []))
    return tuple(Path(place) for place in candidates if os.path.exists(place))
