"""hive's own rules, for what detect-secrets' plugins leave alone, and the placeholders no rule takes.

Each rule covers a gap of detect-secrets 1.5.0 that tool output meets: the newer token formats it
has no plugin for, the body of a private key (its plugin finds the header line), and passwords in
connection strings its URL plugin does not take (an empty user name, a query string). The marker
names them in lowercase (``github-fine-grained-pat``), the plugins by their class (``GitHubTokenDetector``).
"""

from __future__ import annotations

import re

from engine.redaction.ruleset import Rule

_PLACEHOLDER = re.compile(
    r"(?i)(?:pass(?:word|wd)?|pwd?|secret|changeme|\.\.\.|<[^>]*>|\[[^\]]*\]|\{[^}]*\}|\$\{[^}]*\}|\$\w+|%s|%\(\w+\)s)"
)
_ONE_CHARACTER = re.compile(r"(.)\1*", re.DOTALL)


def is_placeholder(secret: str) -> bool:
    """A value that stands for a secret in documentation and examples rather than being one.

    The words (``password``, ``changeme``...), templates and format strings, one character over and
    over (``xxxxxxxx``, ``********``), and the documentation's ``EXAMPLE`` values (AWS's
    ``AKIAIOSFODNN7EXAMPLE``).
    """
    return bool(_PLACEHOLDER.fullmatch(secret) or _ONE_CHARACTER.fullmatch(secret)) or "EXAMPLE" in secret


def _not_placeholder(secret: str, line: str) -> bool:
    return not is_placeholder(secret)


# detect-secrets' GitHubTokenDetector knows the classic prefixes (ghp_, gho_, ghu_, ghs_, ghr_) only.
GITHUB_FINE_GRAINED_PAT = Rule(kind="github-fine-grained-pat", source=r"github_pat_[A-Za-z0-9_]{40,}")

# No plugin for Anthropic's keys (sk-ant-api03-..., sk-ant-admin01-...); OpenAIDetector wants OpenAI's T3BlbkFJ.
ANTHROPIC_API_KEY = Rule(kind="anthropic-api-key", source=r"sk-ant-[a-z]+\d*-[A-Za-z0-9_-]{40,}")

# No plugin for Google's API keys: AIza and 35 characters.
GOOGLE_API_KEY = Rule(kind="google-api-key", source=r"AIza[0-9A-Za-z_-]{35}")

# No plugin for Hugging Face's access tokens: hf_ and some 34 letters and digits.
HUGGINGFACE_TOKEN = Rule(kind="huggingface-token", source=r"\bhf_[A-Za-z0-9]{30,}")

# PrivateKeyDetector finds a key's header ("BEGIN RSA PRIVATE KEY"), which is all a scanner needs to flag a
# file; the model must not get the body. This takes the block: the header, the lines of base64 and of
# "Name: value" headers (PEM, PGP armour, PuTTY; after a blank line, only a long base64 line), and the
# footer, also where a program prints newlines as \n or the output stops before the footer. It also knows
# headers the plugin does not list ("BEGIN ENCRYPTED PRIVATE KEY").
PRIVATE_KEY_BLOCK = Rule(
    kind="private-key-block",
    source=(
        r"(?:-{4,5} ?BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}|PuTTY-User-Key-File-\d+:[^\r\n]*)"
        r"(?:(?:\r?\n|\\n)(?:[A-Za-z][A-Za-z-]*: ?[^\r\n\\]*|[A-Za-z0-9+/=]+)|(?:\r?\n|\\n){2,}[A-Za-z0-9+/=]{16,})*"
        r"(?:(?:\r?\n|\\n)+-{4,5} ?END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5})?"
    ),
)

# BasicAuthDetector takes user:password@ in a URL, but not an empty user (redis://:pw@host) nor
# characters it counts as reserved; this takes any password there.
URL_PASSWORD = Rule(
    kind="url-password",
    source=r"\b[a-z][a-z0-9+.-]{1,30}://[^\s/?#@:'\x60\x22<>]*:([^\s/?#@'\x60\x22<>]{1,256})@[\w\[]",
    flags=re.IGNORECASE,
    accept=_not_placeholder,
)

# No plugin looks in query strings: ...?user=app&password=pw, ?access_token=...
URL_QUERY_PASSWORD = Rule(
    kind="url-query-password",
    source=(
        r"[?&;](?:password|passwd|pwd|pass|secret|client_secret|token|access_token|auth_token|api_?key)"
        r"=([^\s&#;'\x60\x22<>]{4,256})"
    ),
    flags=re.IGNORECASE,
    accept=_not_placeholder,
)

HIVE_RULES = (
    GITHUB_FINE_GRAINED_PAT,
    ANTHROPIC_API_KEY,
    GOOGLE_API_KEY,
    HUGGINGFACE_TOKEN,
    PRIVATE_KEY_BLOCK,
    URL_PASSWORD,
    URL_QUERY_PASSWORD,
)
"""Run after detect-secrets' pattern plugins (which name a span they share) and before its keyword plugin."""
