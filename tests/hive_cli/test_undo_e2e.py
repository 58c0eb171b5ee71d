"""`hive undo` and `hive checkpoints list` after real `hive run` turns against the scripted model server."""

from __future__ import annotations

import os
from pathlib import Path

from tests.engine.checkpoints.helpers import picture, texts
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.trust import trust


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def one_turn(server: LLMServer, workdir: Path, *calls: tuple[str, dict[str, str]]) -> None:
    server.script(*(tool_calls(call(name, args, id=f"c{i}")) for i, (name, args) in enumerate(calls)), text("done"))
    done = run_hive("run", "change things", "--yes", *model_args(server, workdir))
    assert done.returncode == 0, done.stderr


def test_hive_undo_reverts_the_last_turn_and_then_the_one_before(llm_server: LLMServer, tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("original\n")
    (project / "tool.sh").write_text("#!/bin/sh\necho hi\n")
    (project / "tool.sh").chmod(0o755)
    start = picture(project)
    one_turn(llm_server, project, ("write_file", {"path": "src/new.py", "content": "x = 1\n"}))
    after_first = picture(project)
    one_turn(
        llm_server,
        project,
        ("edit_file", {"path": "notes.txt", "old_string": "original", "new_string": "edited"}),
        ("execute_command", {"command": "rm tool.sh && echo made > made.txt && cp notes.txt src/new.py"}),
    )
    assert list(Path(os.environ["HIVE_HOME"]).rglob("*.base")) == []  # a session's base pre-scan goes with it
    listed = run_hive("checkpoints", "list", "-C", str(project))
    assert listed.returncode == 0 and len(listed.stdout.splitlines()) == 2
    assert "execute_command rm tool.sh" in listed.stdout.splitlines()[0]

    assert run_hive("undo", "--yes", "-C", str(project)).returncode == 0
    assert picture(project) == after_first
    assert run_hive("undo", "--yes", "-C", str(project)).returncode == 0
    assert picture(project) == start
    nothing = run_hive("undo", "--yes", "-C", str(project))
    assert nothing.returncode == 0 and "Nothing to undo" in nothing.stderr


def test_hive_undo_refuses_over_a_file_changed_since_and_force_restores_only_the_others(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    (tmp_path / "b.txt").write_text("b before")
    one_turn(
        llm_server,
        tmp_path,
        ("write_file", {"path": "a.txt", "content": "by hive"}),
        ("write_file", {"path": "b.txt", "content": "b by hive"}),
    )
    (tmp_path / "a.txt").write_text("by hand")
    refused = run_hive("undo", "--yes", "-C", str(tmp_path))
    assert refused.returncode == 1
    assert "a.txt: changed after hive touched it" in refused.stderr and "--force" in refused.stderr
    assert texts(tmp_path) == {"a.txt": "by hand", "b.txt": "b by hive"}
    forced = run_hive("undo", "--yes", "--force", "-C", str(tmp_path))
    assert forced.returncode == 0, forced.stderr
    assert texts(tmp_path) == {"a.txt": "by hand", "b.txt": "b before"}  # the person's edit survives
    assert "not restored: a.txt (changed after hive touched it)" in forced.stdout
    assert "left exactly as they are" in forced.stdout


def test_hive_undo_without_yes_and_without_a_terminal_is_a_usage_error(llm_server: LLMServer, tmp_path: Path) -> None:
    one_turn(llm_server, tmp_path, ("write_file", {"path": "a.txt", "content": "x"}))
    asked = run_hive("undo", "-C", str(tmp_path), stdin="")
    assert asked.returncode == 2 and "--yes" in asked.stderr
    assert (tmp_path / "a.txt").exists()


def test_hive_undo_to_goes_back_several_turns(llm_server: LLMServer, tmp_path: Path) -> None:
    one_turn(llm_server, tmp_path, ("write_file", {"path": "a.txt", "content": "1"}))
    one_turn(llm_server, tmp_path, ("write_file", {"path": "a.txt", "content": "2"}))
    one_turn(llm_server, tmp_path, ("execute_command", {"command": "echo 3 > a.txt"}))
    assert run_hive("undo", "--yes", "--to", "2", "-C", str(tmp_path)).returncode == 0
    assert (tmp_path / "a.txt").read_text() == "1"


def test_checkpoints_switched_off_in_the_settings_keep_nothing(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text("checkpoints:\n  enabled: false\n")
    trust(tmp_path)  # a repository cannot switch undo off until the person trusts it
    one_turn(llm_server, tmp_path, ("write_file", {"path": "a.txt", "content": "x"}))
    listed = run_hive("checkpoints", "list", "-C", str(tmp_path))
    assert listed.returncode == 0 and listed.stdout == "" and "No checkpoints" in listed.stderr


def test_hive_undo_never_deletes_through_a_folder_a_turn_swapped_for_a_link(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    (outside / "f.txt").write_text("precious")
    one_turn(
        llm_server,
        project,
        ("write_file", {"path": "src/d/f.txt", "content": "made"}),
        ("execute_command", {"command": f"rm src/d/f.txt && rmdir src/d && ln -s {outside} src/d"}),
    )
    assert (project / "src" / "d").is_symlink()
    assert run_hive("undo", "--yes", "-C", str(project)).returncode == 0
    assert (outside / "f.txt").read_text() == "precious"
    assert picture(project) == {}


def test_hive_undo_refuses_a_path_under_a_folder_since_swapped_for_a_link_and_says_why(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    one_turn(llm_server, project, ("write_file", {"path": "src/d/f.txt", "content": "same"}))
    (outside / "f.txt").write_text("same")  # the bytes hive wrote: only the link tells them apart
    (project / "src" / "d" / "f.txt").unlink()
    (project / "src" / "d").rmdir()
    (project / "src" / "d").symlink_to(outside)
    refused = run_hive("undo", "--yes", "-C", str(project))
    assert refused.returncode == 1
    assert f"{project / 'src' / 'd'} is a symbolic link; undo never follows a link" in refused.stderr
    forced = run_hive("undo", "--yes", "--force", "-C", str(project))
    assert forced.returncode == 0 and "not restored: src/d/f.txt" in forced.stdout
    assert (outside / "f.txt").read_text() == "same"
