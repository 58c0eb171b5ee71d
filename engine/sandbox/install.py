"""hive's own install: the files that must stay as they are for hive to be hive (read-only in the sandbox)."""

from __future__ import annotations

import functools
import importlib.util
import os
import sys
from pathlib import Path


@functools.cache
def hive_install() -> tuple[Path, ...]:
    """hive's own files: its interpreter's prefixes, its packages, the skills it ships and the bundled bwrap.

    A command must not change them where they lie in a writable root (a checkout with its venv inside, a
    project venv hive was installed into): the sandbox binds them read-only.
    """
    from engine.sandbox.bwrap import bundled_bwrap
    from engine.skills.roots import bundled_skills_dir

    found = [Path(sys.prefix), Path(sys.base_prefix), Path(__file__).resolve().parents[1]]
    cli = importlib.util.find_spec("hive_cli")
    found += [Path(folder) for folder in ((cli and cli.submodule_search_locations) or ())]
    found += [path for path in (bundled_skills_dir(), bundled_bwrap()) if path is not None]
    return tuple(dict.fromkeys(Path(os.path.realpath(path)) for path in found))
