"""The first request's map kept whole: its key follows the files and the settings, and a bad file is ignored."""

from __future__ import annotations

import os
from pathlib import Path

from engine.repomap.files import candidate_files
from engine.repomap.section_cache import load_section, save_section, section_key, section_path
from tests.support.repo_map_fixture import write_project


def key_of(root: Path, settings: object = ("rules", 1024)) -> str:
    return section_key(root, list(candidate_files(root)), settings)


def test_the_key_changes_with_a_file_s_content_its_list_and_the_settings(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project").resolve()
    first = key_of(root)
    assert key_of(root) == first

    models = root / "store" / "models.py"
    stamp = models.stat()
    models.write_text(models.read_text().replace("OrderBook", "OrderDesk"))  # the same size
    os.utime(models, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1_000_000))
    changed = key_of(root)
    (root / "store" / "extra.py").write_text("def more():\n    return 1\n")
    listed = key_of(root)

    assert len({first, changed, listed, key_of(root, ("rules", 512)), key_of(root, ("other rules", 1024))}) == 5


def test_a_kept_section_comes_back_only_for_its_folder_and_key(tmp_path: Path) -> None:
    root = write_project(tmp_path / "project").resolve()
    kept_at = section_path(root, tmp_path / "cache")
    save_section(kept_at, root, "key-1", "# Repository map\n...")

    assert load_section(kept_at, root, "key-1") == "# Repository map\n..."
    assert load_section(kept_at, root, "key-2") is None
    assert load_section(kept_at, tmp_path / "elsewhere", "key-1") is None
    assert oct(kept_at.stat().st_mode & 0o777) == "0o600"

    kept_at.write_bytes(b"\x93not a kept section")
    assert load_section(kept_at, root, "key-1") is None
