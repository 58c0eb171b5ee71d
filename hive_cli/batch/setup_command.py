"""A task's ``setup`` command: run with bash in the task's working copy, in hive's sandbox (the task's mode).

The environment is the sandbox's list (no secrets, no API key); the network is off, as for the commands the
agent runs. With ``--sandbox off`` it runs unconfined, as the agent's commands then do.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import cast

from engine.own_variables import inherited_environment
from engine.sandbox.base import SandboxError, create_sandbox
from engine.sandbox.environment import sandbox_environment
from engine.sandbox.options import SandboxMode, SandboxOptions

SETUP_TIMEOUT_S = 1800


class SetupError(Exception):
    """The setup command could not run or failed; the message is one line for the task's result."""


def run_setup(command: str, copy: Path, sandbox: str) -> None:
    """Run ``command`` in ``copy``; ``SetupError`` when it cannot start or exits with a non-zero status."""
    options = SandboxOptions(mode=cast("SandboxMode", sandbox), project=copy)
    env = sandbox_environment(inherited_environment())
    try:
        launch = create_sandbox(options).prepare(command, copy, env)
    except SandboxError as error:
        raise SetupError(f"setup not run: {error}") from None
    try:
        done = subprocess.run(
            launch.argv,
            cwd=copy,
            env=dict(launch.env),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            errors="replace",
            pass_fds=launch.pass_fds,
            start_new_session=True,
            timeout=SETUP_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise SetupError(f"setup did not finish in {SETUP_TIMEOUT_S} s") from None
    finally:
        launch.after()
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip() or "no output").splitlines()[-1]
        raise SetupError(f"setup exited with status {done.returncode}: {said}")
