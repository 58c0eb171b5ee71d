"""`hive skills list` and `hive skills validate` without paths: every skill hive finds, in a table; fast."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.cli import hive_env, run_hive
from tests.support.trust import trust


def write_skill(folder: Path, frontmatter: str) -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{frontmatter}\n---\nBody.\n")


def make_project(tmp_path: Path, home: Path) -> Path:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_skill(project / ".ironhive" / "skills" / "review-diff", "name: review-diff\ndescription: Our own review.")
    write_skill(project / ".agents" / "skills" / "broken", "name: broken")
    write_skill(project / ".agents" / "skills" / "hinted", "name: hinted\ndescription: Has a hint.\nargument-hint: x")
    write_skill(home / "config" / "skills" / "mine", "name: mine\ndescription: A user skill.")
    return project


def rows(stdout: str) -> dict[tuple[str, str], list[str]]:
    table = {}
    for line in stdout.splitlines()[1:-1]:
        cells = line.split(maxsplit=3)
        table[(cells[0], cells[1])] = cells[2:]
    return table


def test_list_shows_name_root_status_and_description_of_every_skill(tmp_path: Path, isolated_hive: Path) -> None:
    project = make_project(tmp_path, isolated_hive)
    done = run_hive("skills", "list", "-C", str(project), COLUMNS="200")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0].split() == ["name", "root", "status", "description"]
    table = rows(done.stdout)
    assert table[("review-diff", "project")] == ["ok", "Our own review."]
    assert table[("review-diff", "bundled")][0] == "shadowed"
    assert table[("mine", "user")] == ["ok", "A user skill."]
    assert table[("broken", "project-agents")] == ["invalid", "Missing required field in frontmatter: description"]
    assert table[("hinted", "project-agents")][0] == "invalid"
    assert table[("write-tests", "bundled")][0] == "ok"
    assert done.stdout.splitlines()[-1] == "5 ok, 1 shadowed, 2 invalid"
    assert "review-diff' is shadowed by" in done.stderr


def test_unknown_fields_accept_loads_skills_written_for_other_clients(tmp_path: Path, isolated_hive: Path) -> None:
    project = make_project(tmp_path, isolated_hive)
    (project / ".ironhive" / "settings.yaml").write_text("skills:\n  unknown_fields: accept\n")
    trust(project)
    done = run_hive("skills", "list", "-C", str(project), COLUMNS="200")
    assert rows(done.stdout)[("hinted", "project-agents")] == ["ok", "Has a hint."]
    assert "fields outside the specification are ignored: argument-hint" in done.stderr


def test_validate_without_paths_judges_every_skill_strictly_in_a_table(tmp_path: Path, isolated_hive: Path) -> None:
    project = make_project(tmp_path, isolated_hive)
    done = run_hive("skills", "validate", "-C", str(project))
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[0].split() == ["result", "root", "skill", "folder"]
    assert lines[1].split() == ["valid", "project", ".ironhive/skills/review-diff"]
    assert lines[2].split() == ["invalid", "project-agents", ".agents/skills/broken"]
    assert lines[-1] == "8 skills: 6 valid, 2 invalid"
    assert "Validation failed for .agents/skills/broken:\n  - Missing required field" in done.stderr
    assert "Unexpected fields in frontmatter: argument-hint." in done.stderr


def test_the_skills_commands_import_neither_litellm_nor_mcp(tmp_path: Path) -> None:
    write_skill(tmp_path / "quick", "name: quick\ndescription: Quick.")
    for args in (["validate", "quick"], ["list"], ["validate"]):
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "hive_cli", "skills", *args],
            cwd=tmp_path, env=hive_env(), capture_output=True, text=True,
        )  # fmt: skip
        imported = {line.rsplit("|", 1)[-1].strip().split(".")[0] for line in done.stderr.splitlines() if "|" in line}
        assert not imported & {"litellm", "mcp", "openai", "tiktoken"}, args


def test_a_skill_whose_folder_and_name_differ_is_listed_invalid_as_validate_refuses_it(
    tmp_path: Path, isolated_hive: Path
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_skill(project / ".agents" / "skills" / "vercel-deploy", "name: deploy\ndescription: Deploys.")
    message = "Directory name 'vercel-deploy' must match skill name 'deploy'"

    listed = run_hive("skills", "list", "-C", str(project), COLUMNS="200")
    validated = run_hive("skills", "validate", "-C", str(project))

    assert listed.returncode == 0, listed.stderr
    assert rows(listed.stdout)[("vercel-deploy", "project-agents")] == ["invalid", message]
    assert ("deploy", "project-agents") not in rows(listed.stdout)
    assert validated.returncode == 1 and message in validated.stdout + validated.stderr
