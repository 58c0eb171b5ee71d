"""Gathering a profile's inputs for a working directory: project root, homes, hive's folders, cached walks."""

from __future__ import annotations

import os
import pwd
import threading
from collections.abc import Mapping
from pathlib import Path

from engine.paths import project_root, user_config_dir, user_data_dir
from engine.sandbox.install import hive_install
from engine.sandbox.options import SandboxOptions
from engine.sandbox.profile import Profile, ProfileInputs, build_profile
from engine.sandbox.scan import ProjectScanner


class ProfilePlanner:
    """Computes the profile of each command; the project walks are cached per root for its lifetime."""

    def __init__(self, options: SandboxOptions, *, private_dirs: tuple[Path, ...]) -> None:
        self.options = options
        self.private_dirs = private_dirs
        self._scanners: dict[Path, ProjectScanner] = {}
        self._lock = threading.Lock()

    def profile(self, cwd: Path, env: Mapping[str, str]) -> Profile:
        """What a command started in ``cwd`` with ``env`` may see and write."""
        project = project_root(cwd)
        writes = self.options.mode == "workspace-write"
        roots = (project, *self.options.writable_roots) if writes else (project,)
        return build_profile(
            ProfileInputs(
                options=self.options,
                cwd=cwd,
                project=project,
                homes=homes(env),
                hive_dirs=(user_config_dir(), user_data_dir()),
                scans=tuple(self.scanner(root).scan() for root in roots),
                private_dirs=self.private_dirs,
                hive_install=hive_install(),
            )
        )

    def scanner(self, root: Path) -> ProjectScanner:
        """The cached walker of ``root`` (one per resolved folder)."""
        real = Path(os.path.realpath(root))
        with self._lock:
            if real not in self._scanners:
                self._scanners[real] = ProjectScanner(real)
            return self._scanners[real]


def homes(env: Mapping[str, str]) -> tuple[Path, ...]:
    """The home the command sees (``$HOME``) and the account's own, when they differ."""
    found = [Path(env["HOME"])] if env.get("HOME") else []
    try:
        found.append(Path(pwd.getpwuid(os.getuid()).pw_dir))
    except KeyError:
        pass
    return tuple(dict.fromkeys(found))
