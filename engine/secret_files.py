"""The one list of secret files: what ``read_file`` asks about or refuses, and what the sandbox hides.

The patterns are path globs in the language of the permission rules (:mod:`engine.policy.patterns`),
matched whatever the case. The built-in read rules are made from :data:`SECRET_ASKS` and
:data:`SECRET_DENIES` (:mod:`engine.policy.defaults`), and the sandbox's walk of a project hides every
file and folder :func:`is_secret_file` or :func:`is_secret_folder` names, which are made from the same
two tuples, so the tools and the sandbox cannot disagree about what a secret is.

Three shapes of pattern, each matched as cheaply as the walk needs:

* a file name (no ``/``): ``.env*``, ``*.pem``... matched against the last segment of a path;
* a folder and everything in it (``**/NAME/**``, ``**/a/b/**``): the walk hides the folder whole;
* a file at a known place (``**/.kube/config``): matched against the whole path, only when the
  name is the pattern's last segment.
"""

from __future__ import annotations

import re
from functools import cache

from engine.policy.patterns import path_regex

SECRET_ASKS = (
    ".env*",
    ".npmrc",
    ".pypirc",
    ".yarnrc*",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "credentials",
    "credentials*.{json,yaml,yml,toml,ini,cfg,conf,csv,txt,xml}",
    "service-account*.json",
    "secrets.{yaml,yml,json,toml}",
    ".dev.vars",
    "kubeconfig",
    "**/.aws/**",
    "**/.ssh/**",
    "**/.gnupg/**",
    "**/.docker/config.json",
    "**/.kube/config",
    "**/.config/gh/hosts.yml",
    "**/.config/gcloud/**",
    "**/.azure/**",
    "*.tfstate*",
    ".terraformrc",
    ".my.cnf",
    ".htpasswd",
)
"""Read only after a question (matched whatever the case); hidden from sandboxed commands."""
SECRET_DENIES = (
    "**/secrets/**",
    ".git-credentials",
    ".netrc",
    "_netrc",
    ".pgpass",
    "*.kdbx",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "id_ecdsa_sk",
    "id_ed25519_sk",
    "**/.aws/credentials",
    ".vault-token",
)
"""Never read (matched whatever the case); hidden from sandboxed commands."""
SECRET_PATTERNS = (*SECRET_ASKS, *SECRET_DENIES)
"""Every secret pattern, asked and refused alike."""
_FOLDER_SUFFIX = "/**"


def is_secret_file(path: str) -> bool:
    """Whether the file at ``path`` (any form, ``/``-separated) is one the list names.

    A file named like a secret folder (a file called ``secrets``) counts too: the read rules match it.
    """
    name = path.rsplit("/", 1)[-1]
    matchers = _matchers()
    if matchers.names.fullmatch(name):
        return True
    lowered = name.lower()
    return (lowered in matchers.placed_last and _placed_match(path)) or is_secret_folder(path)


def is_secret_folder(path: str) -> bool:
    """Whether the folder at ``path`` is one whose whole content the list names (``secrets/``, ``.ssh/``)."""
    matchers = _matchers()
    name = path.rsplit("/", 1)[-1].lower()
    return name in matchers.folder_last and matchers.folders.fullmatch(path) is not None


def _placed_match(path: str) -> bool:
    return _matchers().placed.fullmatch(path) is not None


class _Matchers:
    """The list compiled three ways (see the module docstring)."""

    def __init__(self, patterns: tuple[str, ...]) -> None:
        names = [p for p in patterns if "/" not in p]
        folders = [p.removesuffix(_FOLDER_SUFFIX) for p in patterns if p.endswith(_FOLDER_SUFFIX)]
        placed = [p for p in patterns if "/" in p and not p.endswith(_FOLDER_SUFFIX)]
        self.names = _combined(names)
        self.folders = _combined(folders)
        self.placed = _combined(placed)
        self.folder_last = frozenset(_last(p) for p in folders)
        self.placed_last = frozenset(_last(p) for p in placed)


def _combined(patterns: list[str]) -> re.Pattern[str]:
    # Every pattern as the rules compile it, so a name the rules match is a name the walk matches.
    return re.compile("|".join(f"(?:{path_regex(p, ignore_case=True).pattern})" for p in patterns), re.IGNORECASE)


def _last(pattern: str) -> str:
    last = pattern.rsplit("/", 1)[-1].lower()
    if any(char in last for char in "*?[{"):
        raise ValueError(f"a secret folder or placed file needs a literal last segment: {pattern}")
    return last


@cache
def _matchers() -> _Matchers:
    return _Matchers(SECRET_PATTERNS)
