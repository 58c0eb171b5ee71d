"""OpenAI's Codex CLI for the end-to-end comparison: where it is, and how it is pointed at the local model server.

`make codex` installs it under benchmarks/support/codex/ (git-ignored); one on PATH is used otherwise.
Codex reads its model providers from ``$CODEX_HOME/config.toml``: a custom provider whose
``base_url`` is the scripted server and whose ``wire_api`` is ``responses`` sends every turn to
``{base_url}/responses``, the key coming from the variable named by ``env_key``.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

INSTALL_DIR = Path(__file__).resolve().parent / "codex"
INSTALLED = INSTALL_DIR / "node_modules" / ".bin" / "codex"
INSTALL_LOG = INSTALL_DIR / "install.log"
KEY_ENV = "HIVE_BENCH_CODEX_KEY"

CONFIG = """model = "{model}"
model_provider = "bench"

[model_providers.bench]
name = "local scripted server"
base_url = "{base_url}"
env_key = "{key_env}"
wire_api = "responses"

[analytics]
enabled = false
"""


def find() -> tuple[str | None, str]:
    """The codex executable (the installed one, else one on PATH), or None and the reason there is none."""
    if INSTALLED.exists():
        return str(INSTALLED), ""
    on_path = shutil.which("codex")
    if on_path:
        return on_path, ""
    reason = "not installed (`make codex` installs it with npm)"
    if INSTALL_LOG.exists():
        lines = [line for line in INSTALL_LOG.read_text(errors="replace").splitlines() if line.strip()]
        errors = [line for line in lines if "error" in line.lower() and not _npm_boilerplate(line)] or lines
        reason = f"npm could not install it: {errors[0][:200]}" if errors else reason
    return None, reason


def _npm_boilerplate(line: str) -> bool:
    return "error code " in line or "complete log" in line


def version(binary: str) -> str:
    """``codex --version``'s answer (e.g. ``codex-cli 0.171.0``)."""
    done = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30, check=False)
    return done.stdout.strip() or "codex (version unknown)"


def home(folder: Path, base_url: str, model: str) -> Path:
    """A fresh ``CODEX_HOME`` whose config sends ``model`` to the server at ``base_url``."""
    folder.mkdir(parents=True, exist_ok=True)
    text = CONFIG.format(model=model, base_url=base_url, key_env=KEY_ENV)
    (folder / "config.toml").write_text(text, encoding="utf-8")
    return folder


def command(binary: str, task: str) -> list[str]:
    """``codex exec`` of ``task`` in the current folder (which is no git repository)."""
    return [binary, "exec", "--skip-git-repo-check", task]
