"""Checkpoint blobs are never wider than their source: the store is 0700/0600 whatever the umask, undo gives modes back."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.checkpoints.store import CheckpointStore
from engine.checkpoints.undo import pending, revert
from tests.engine.checkpoints.helpers import workspace


@pytest.fixture(autouse=True)
def open_umask() -> Iterator[None]:
    previous = os.umask(0o022)  # the usual umask: without care, files are 0644 and folders 0755
    yield
    os.umask(previous)


def modes(root: Path) -> dict[str, int]:
    """Every path under ``root`` with its permission bits."""
    found = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder, name)
            found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def test_a_credentials_file_the_model_edits_is_kept_0600_and_undo_gives_its_mode_back(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    credentials = ws.root / "credentials.ini"
    credentials.write_text("[default]\nsecret = s3cr3t-value\n")
    credentials.chmod(0o600)
    script = ws.root / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)

    ws.call("edit_file", path="credentials.ini", old_string="s3cr3t-value", new_string="changed")
    ws.call("execute_command", command="echo more >> run.sh")
    ws.end_round(first=True)

    kept = modes(ws.store.root)
    blobs = [path for path in kept if path.startswith("objects/") and path.count("/") == 2]
    assert blobs and all(kept[path] == 0o600 for path in blobs)  # the 0755 script's copy too
    assert all(mode == 0o700 for path, mode in kept.items() if (ws.store.root / path).is_dir())
    assert all(mode == 0o600 for path, mode in kept.items() if (ws.store.root / path).is_file())
    assert stat.S_IMODE(os.stat(ws.store.root).st_mode) == 0o700
    [turn] = pending(ws.store)
    revert(turn, ws.store)
    assert credentials.read_text().endswith("s3cr3t-value\n") and stat.S_IMODE(credentials.stat().st_mode) == 0o600
    assert script.read_text() == "#!/bin/sh\n" and stat.S_IMODE(script.stat().st_mode) == 0o755


def test_a_store_an_earlier_version_left_open_is_narrowed_when_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIVE_HOME", str(tmp_path / "home"))
    project = tmp_path / "project"
    project.mkdir()
    store = CheckpointStore.for_project(project)
    digest = store.put_bytes(b"secret = yes\n")
    for path in (store.root, store.objects, store.blob_path(digest).parent):
        path.chmod(0o755)
    store.blob_path(digest).chmod(0o644)  # as the umask left them before

    reopened = CheckpointStore.for_project(project)

    assert set(modes(reopened.root).values()) <= {0o700, 0o600}
    assert stat.S_IMODE(os.stat(reopened.root).st_mode) == 0o700
    assert reopened.read_blob(digest) == b"secret = yes\n"


def test_a_blob_kept_open_by_an_earlier_version_is_narrowed_when_kept_again(tmp_path: Path) -> None:
    store = CheckpointStore(tmp_path / "store")
    digest = store.put_bytes(b"token")
    store.blob_path(digest).chmod(0o644)
    assert store.put_bytes(b"token") == digest
    assert stat.S_IMODE(store.blob_path(digest).stat().st_mode) == 0o600
