"""Gathering a profile's inputs for a working directory: project root, homes, hive's folders, cached walks.

The walks are shared by every sandbox of the process (:func:`~engine.sandbox.scan.shared_scanner`),
so :func:`walk_stopped`, which the approval gate asks before a command, costs what a command's own
walk costs: one ``stat`` per folder that did not change.
"""

from __future__ import annotations

import os
import pwd
from collections.abc import Mapping
from pathlib import Path

from engine.paths import project_root, user_config_dir, user_data_dir
from engine.sandbox.install import hive_install
from engine.sandbox.options import SandboxOptions
from engine.sandbox.profile import Profile, ProfileInputs, build_profile
from engine.sandbox.scan import ProjectScanner, ScanResult, shared_scanner


class ProfilePlanner:
    """Computes the profile of each command from the shared walks of its roots.

    ``private_files``: a folder of this process's own where the filtered git configuration is written
    (None: no ``~/.gitconfig`` in the hidden home). ``hide_home``: False where the sandbox cannot
    mount a folder over the home (macOS).
    """

    def __init__(
        self,
        options: SandboxOptions,
        *,
        private_dirs: tuple[Path, ...],
        private_files: Path | None = None,
        hide_home: bool = True,
    ) -> None:
        self.options = options
        self.private_dirs = private_dirs
        self.private_files = private_files
        self.hide_home = hide_home

    def profile(self, cwd: Path, env: Mapping[str, str]) -> Profile:
        """What a command started in ``cwd`` with ``env`` may see and write."""
        project = project_root(cwd)
        return build_profile(
            ProfileInputs(
                options=self.options,
                cwd=cwd,
                project=project,
                homes=homes(env),
                hive_dirs=(user_config_dir(), user_data_dir()),
                scans=scans(self.options, project),
                private_dirs=self.private_dirs,
                env=env,
                git_config=self._git_config(env),
                hide_home=self.hide_home,
                hive_install=hive_install(),
            )
        )

    def scanner(self, root: Path) -> ProjectScanner:
        """The walker of ``root``: one per resolved folder in this process (see :func:`shared_scanner`)."""
        return shared_scanner(root)

    def _git_config(self, env: Mapping[str, str]) -> Path | None:
        if self.private_files is None:
            return None
        from engine.sandbox.gitconfig import filtered_git_config

        return filtered_git_config(env, self.private_files)


def scans(options: SandboxOptions, project: Path) -> tuple[ScanResult, ...]:
    """A fresh walk of each root a command in ``project`` has: the writable roots, or the project alone."""
    writes = options.mode == "workspace-write"
    roots = (project, *options.writable_roots) if writes else (project,)
    return tuple(shared_scanner(root).scan() for root in roots)


def walk_stopped(options: SandboxOptions, cwd: Path) -> str | None:
    """Why the sandbox may not hide every secret file of a command in ``cwd``: where a walk stopped, or None."""
    for scan in scans(options, project_root(cwd)):
        if scan.truncated:
            return (
                f"the sandbox hides the secret files its walk of {scan.root} finds, and that walk stopped "
                f"{scan.stopped}: secret files deeper down (.env*, keys, secrets/...) would be readable by the command"
            )
    return None


def homes(env: Mapping[str, str]) -> tuple[Path, ...]:
    """The home the command sees (``$HOME``) and the account's own, when they differ."""
    found = [Path(env["HOME"])] if env.get("HOME") else []
    try:
        found.append(Path(pwd.getpwuid(os.getuid()).pw_dir))
    except KeyError:
        pass
    return tuple(dict.fromkeys(found))
