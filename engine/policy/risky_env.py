"""Environment variables that make an allowed program load or run other code, or send its traffic elsewhere.

Setting one (``FOO=1 cmd``, ``env FOO=1 cmd``, ``export FOO``) is asked whatever the rules say.
Names are matched whatever their case: some programs read the lower-case spelling too
(``http_proxy``, ``npm_config_*``), and on Windows names have no case at all.
"""

from __future__ import annotations

import functools
import re

RISKY_VARIABLES: tuple[tuple[str, str], ...] = (
    (r"PATH|CDPATH|IFS|ENV|BASH_ENV|SHELLOPTS|BASHOPTS|BASH_FUNC_.*|PROMPT_COMMAND|PS[0-4]|SHELL", "the shell"),
    (r"HOME|ZDOTDIR|XDG_\w+|TMPDIR", "where programs find their configuration"),
    (r"EDITOR|VISUAL|PAGER|MANPAGER|MANOPT|BROWSER|LESSOPEN|LESSCLOSE|LESSKEY\w*", "programs other programs start"),
    (r"GIT_\w+", "git (GIT_SSH_COMMAND, GIT_EXEC_PATH, GIT_CONFIG_*, GIT_DIR, GIT_PAGER, ...)"),
    (r"SSH_ASKPASS|SUDO_ASKPASS|SSH_AUTH_SOCK", "password prompts and keys"),
    (r"LD_\w+|DYLD_\w+|GCONV_PATH|GLIBC_TUNABLES|MALLOC_\w+|NLSPATH", "the dynamic loader"),
    (r"PYTHON\w*|PIP_\w+|UV_\w+|VIRTUAL_ENV|CONDA_\w+|PYTEST_\w+|TOX_\w+", "Python"),
    (r"NODE_OPTIONS|NODE_PATH|NPM_CONFIG_\w+|YARN_\w+|PNPM_\w+|COREPACK_\w+", "Node"),
    (r"RUSTC\w*|RUSTFLAGS|RUSTDOC\w*|CARGO\w*|RUSTUP_\w+", "Rust"),
    (r"DOTNET_\w+|MSBUILD\w*|NUGET_\w+", ".NET"),
    (
        r"GO(?:FLAGS|PATH|ROOT|PROXY|TOOLCHAIN|ENV|BIN|EXPERIMENT|CACHE|MODCACHE|PRIVATE|NOPROXY|SUMDB|VCS)|CGO_\w+",
        "Go",
    ),
    (r"PERL5?\w*|RUBY\w*|GEM_\w+|BUNDLE_\w+|LUA_\w+|PHPRC|PHP_INI_SCAN_DIR|TCLLIBPATH", "script languages"),
    (r"JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|MAVEN_OPTS|GRADLE_OPTS", "Java"),
    (r"CC|CXX|CPP|LD|AR|AS|MAKE|MAKEFLAGS|MFLAGS|GNUMAKEFLAGS|C(?:XX|PP)?FLAGS|LDFLAGS", "compilers and make"),
    (r"\w*_PROXY", "where network traffic goes"),
    (r"\w+_CA_BUNDLE|SSL_CERT_\w+|NODE_EXTRA_CA_CERTS", "which servers are trusted"),
    (r"AWS_CONFIG_FILE|AWS_SHARED_CREDENTIALS_FILE|KUBECONFIG|DOCKER_\w+", "credential helpers they name"),
)
"""Each pattern (a whole name) with what it changes."""


@functools.cache
def _risky() -> re.Pattern[str]:
    """The patterns as one, compiled when the first name is judged (about 3 ms: not for sessions that set none)."""
    return re.compile("|".join(f"(?:{pattern})" for pattern, _ in RISKY_VARIABLES), re.IGNORECASE)


def risky_variable(name: str) -> bool:
    """Whether setting this variable can make an allowed program load or run other code (any case)."""
    return _risky().fullmatch(name) is not None
