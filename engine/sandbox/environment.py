"""The environment a sandboxed command (or a hook) gets: the variables a documented list names, nothing else.

A variable passes only when its name is on :data:`PASSED` (exact names) or starts with one of
:data:`PASSED_PREFIXES`, and even then not when :func:`is_secret` flags its name or its value (a
name on the list is no guarantee: ``PIP_INDEX_URL`` may carry ``user:pass@``, ``NPM_CONFIG_*`` an
``_authToken``). The proxy variables pass only when the network is on. Everything else is dropped,
whatever it is called: ``REDIS_URL``, ``DATABASE_URL``, ``CI_JOB_JWT``, an Azure connection string,
``SSH_AUTH_SOCK``, ``DISPLAY``... The user's ``sandbox.env`` names more variables, passed as they are.
git's configuration through ``GIT_CONFIG_COUNT`` then switches off the programs a repository names by a
fixed key (:mod:`engine.git_environment`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from engine.git_environment import with_neutral_git

PASSED_GROUPS: dict[str, tuple[str, ...]] = {
    "core": (
        *("PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR"),
        *("LANG", "LANGUAGE", "LC_*", "TZ", "COLUMNS", "LINES", "EDITOR", "VISUAL", "CI"),
        *("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS"),
        *("GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_TERMINAL_PROMPT"),
    ),
    "tls": (
        *("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PIP_CERT"),
        *("GIT_SSL_CAINFO", "AWS_CA_BUNDLE", "NIX_SSL_CERT_FILE", "CARGO_HTTP_CAINFO", "HTTPLIB2_CA_CERTS"),
        "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH",
    ),
    "python": (
        *("VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "CONDA_EXE", "PYENV_ROOT", "PYENV_VERSION", "PYTHONPATH"),
        *("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX", "PYTHONUTF8", "PYTHONUNBUFFERED", "PYTHONHASHSEED"),
        *("PYTHONWARNINGS", "PYTHONIOENCODING", "PIP_*", "UV_*", "POETRY_*", "PIPX_*", "WORKON_HOME"),
        "PYDANTIC_DISABLE_PLUGINS",
    ),
    "node": (
        *("NODE_OPTIONS", "NODE_PATH", "NODE_ENV", "NVM_DIR", "NVM_BIN", "NVM_INC", "VOLTA_HOME", "FNM_DIR"),
        *("PNPM_HOME", "COREPACK_HOME", "YARN_CACHE_FOLDER", "NPM_CONFIG_*", "npm_config_*"),
    ),
    "rust": (
        *("CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "CARGO_TARGET_DIR", "RUSTFLAGS", "RUSTDOCFLAGS"),
        *("CARGO_BUILD_*", "CARGO_NET_OFFLINE", "CARGO_TERM_*", "CARGO_INCREMENTAL", "RUST_BACKTRACE", "RUST_LOG"),
    ),
    "go": (
        *("GOPATH", "GOROOT", "GOMODCACHE", "GOBIN", "GOFLAGS", "GOPROXY", "GOPRIVATE", "GONOPROXY", "GONOSUMDB"),
        *("GONOSUMCHECK", "GOSUMDB", "GOTOOLCHAIN", "GO111MODULE", "GOWORK", "CGO_ENABLED", "GOOS", "GOARCH"),
    ),
    "jvm": (
        *("JAVA_HOME", "JDK_HOME", "GRADLE_USER_HOME", "GRADLE_OPTS", "GRADLE_RO_DEP_CACHE", "MAVEN_OPTS", "M2_HOME"),
        *("MAVEN_HOME", "SDKMAN_DIR", "COURSIER_CACHE"),
    ),
    "ruby": ("GEM_HOME", "GEM_PATH", "BUNDLE_PATH", "BUNDLE_GEMFILE", "BUNDLE_WITHOUT", "RBENV_ROOT", "RBENV_VERSION"),
    "native": (
        *("CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "PKG_CONFIG_PATH", "LD_LIBRARY_PATH"),
        *("LIBRARY_PATH", "CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "MAKEFLAGS", "CMAKE_*", "CCACHE_DIR"),
    ),
    "others": (
        "DENO_DIR",
        "DENO_INSTALL",
        "BUN_INSTALL",
        "DOTNET_ROOT",
        "NUGET_PACKAGES",
        "ASDF_DATA_DIR",
        "MISE_DATA_DIR",
    ),
}
"""The names (``*`` at the end: a prefix) a sandboxed command gets, by group, as docs/sandbox.md lists them."""
PROXY_NAMES = (
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
)
"""Passed only when the network is on (and, like the rest, not with a password in them)."""
_ALL_NAMES = tuple(name for names in PASSED_GROUPS.values() for name in names)
PASSED = frozenset(name for name in _ALL_NAMES if not name.endswith("*"))
PASSED_PREFIXES = tuple(name.removesuffix("*") for name in _ALL_NAMES if name.endswith("*"))

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


def is_passed(name: str, *, network: bool = False) -> bool:
    """Whether the list lets a variable of this name through (its value is judged apart)."""
    if name in PASSED or name.startswith(PASSED_PREFIXES):
        return True
    return network and name in PROXY_NAMES


def sandbox_environment(
    env: Mapping[str, str],
    extra: Mapping[str, str] | None = None,
    *,
    network: bool = False,
    passed: Iterable[str] = (),
) -> dict[str, str]:
    """The variables of ``env`` the list lets through, ``passed`` as they are, then ``extra`` on top, then the
    configuration that keeps git from running what a repository names by a fixed key
    (:func:`engine.git_environment.with_neutral_git`).

    ``network``: whether commands may use the network (the proxy variables pass only then).
    ``passed``: the names the user's ``sandbox.env`` adds, passed whatever they hold.
    """
    chosen = set(passed)
    kept = {
        name: value
        for name, value in env.items()
        if name in chosen or (is_passed(name, network=network) and not is_secret(name, value))
    }
    return with_neutral_git(kept | dict(extra or {}))
