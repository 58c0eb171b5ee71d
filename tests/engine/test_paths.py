"""The project's scratch folder: made with its own .gitignore, so git never sees what hive keeps there."""

from __future__ import annotations

from pathlib import Path

from engine.paths import ensure_scratch_dir, scratch_dir


def test_the_scratch_folder_is_at_the_project_root(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "src" / "deep").mkdir(parents=True)
    assert scratch_dir(tmp_path / "src" / "deep") == tmp_path.resolve() / ".hive"


def test_a_new_scratch_folder_holds_only_its_gitignore(tmp_path: Path) -> None:
    folder = ensure_scratch_dir(tmp_path / "project" / ".hive")
    assert [p.name for p in folder.iterdir()] == [".gitignore"]
    assert (folder / ".gitignore").read_text() == "*\n"
    assert [p.name for p in folder.parent.iterdir()] == [".hive"]  # no temporary folder left behind


def test_an_existing_scratch_folder_gets_its_gitignore_and_keeps_its_files(tmp_path: Path) -> None:
    folder = tmp_path / ".hive"
    folder.mkdir()
    (folder / "kept.log").write_text("kept")
    ensure_scratch_dir(folder)
    assert (folder / ".gitignore").read_text() == "*\n"
    assert (folder / "kept.log").read_text() == "kept"
    assert sorted(p.name for p in folder.iterdir()) == [".gitignore", "kept.log"]
