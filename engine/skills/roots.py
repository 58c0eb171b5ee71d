"""Where skills are looked for, in priority order, and where the skills bundled with hive live.

Default order (the first root wins a name collision): the project's ``.ironhive/skills/``, the
project's ``.agents/skills/``, extra roots from the settings, the user's ``skills/`` folder in the
user config dir, and the bundled ``skills/``.

Bundled skills: in a source checkout or an editable install they are the repository's ``skills/``
folder, found relative to this package. A built wheel installs the same folders as data files
under ``<prefix>/share/hive/skills`` (see ``[tool.setuptools.data-files]`` in pyproject.toml).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from engine.paths import PROJECT_DIR_NAME, project_root, user_config_dir
from engine.skills.model import SkillRoot

INSTALLED_BUNDLE = Path("share") / "hive" / "skills"


def bundled_skills_dir() -> Path | None:
    """The folder of the skills that ship with hive, if it can be found."""
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file() and (checkout / "skills").is_dir():
        return checkout / "skills"
    for prefix in dict.fromkeys((sys.prefix, sys.base_prefix)):
        installed = Path(prefix) / INSTALLED_BUNDLE
        if installed.is_dir():
            return installed
    return None


def default_roots(cwd: Path, *, extra: Sequence[Path] = (), include_bundled: bool = True) -> tuple[SkillRoot, ...]:
    """The skill roots for a session in ``cwd``, highest priority first."""
    project = project_root(cwd)
    roots = [
        SkillRoot(project / PROJECT_DIR_NAME / "skills", "project"),
        SkillRoot(project / ".agents" / "skills", "project-agents"),
        *(SkillRoot(path, "extra") for path in extra),
        SkillRoot(user_config_dir() / "skills", "user"),
    ]
    bundled = bundled_skills_dir() if include_bundled else None
    if bundled is not None:
        roots.append(SkillRoot(bundled, "bundled"))
    return tuple(roots)
