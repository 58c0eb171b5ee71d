"""The environment a sandboxed command gets: the caller's, without API keys, tokens, passwords and other secrets."""

from __future__ import annotations

import re
from collections.abc import Mapping

# Matched case-insensitively against variable names. Word parts are bounded by "_" or the ends of the
# name where a bare substring would catch harmless names (TOKENIZERS_PARALLELISM, XAUTHORITY, PWD).
_SECRET_NAME = re.compile(
    r"""
      API_?KEY | ACCESS_?KEY | PRIVATE_?KEY | SECRET | PASSW(?:OR)?D | PASSPHRASE | CREDENTIAL | WEBHOOK
    | TOKENS?(?:_|$)
    | (?:^|_)(?:AUTH|AUTHORIZATION|COOKIE|DSN|KEY|PAT)(?:_|$) | _PWD(?:_|$)
    | ^(?:GPG_AGENT_INFO|KRB5CCNAME|SSH_AGENT_PID)$
    """,
    re.IGNORECASE | re.VERBOSE,
)
# Values that are secrets whatever the variable is called: URLs with credentials in them, and the
# prefixes of well-known key formats.
_SECRET_VALUE = re.compile(
    r"""
      ://[^/\s@:]+(?::[^/\s@]*)?@
    | ^(?:sk-|sk_live_|rk_live_|ghp_|gho_|ghu_|ghs_|ghr_|github_pat_|glpat-|xox[abprs]-)\S{8,}
    | ^AKIA[0-9A-Z]{16}$
    | ^AIza[0-9A-Za-z_-]{30,}$
    """,
    re.VERBOSE,
)


def is_secret(name: str, value: str = "") -> bool:
    """True when a variable looks like it holds a secret, by its name or by its value."""
    return bool(_SECRET_NAME.search(name) or (value and _SECRET_VALUE.search(value)))


def sandbox_environment(env: Mapping[str, str], extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` without the variables :func:`is_secret` flags, then ``extra`` on top."""
    kept = {name: value for name, value in env.items() if not is_secret(name, value)}
    return kept | dict(extra or {})
