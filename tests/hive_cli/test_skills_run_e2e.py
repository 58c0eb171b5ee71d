"""Skills in a real `hive run`: listed in the system prompt, loaded with load_skill, confined to their folder."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls


def make_project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    skill = project / ".ironhive" / "skills" / "release-notes"
    (skill / "templates").mkdir(parents=True)
    (project / ".git").mkdir()
    (skill / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Write release notes from the git log.\n---\n"
        "# Release notes\n\nUse templates/notes.md as the layout.\n"
    )
    (skill / "templates" / "notes.md").write_text("## Added\n## Fixed\n")
    (project / "secret.txt").write_text("do not leak")
    return project


def run(server: LLMServer, project: Path, *extra: str) -> dict[str, object]:
    done = run_hive(
        "run", "write the release notes", "-o", "json", "--model", "openai/test-model",
        "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(project), *extra,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_session_lists_its_skills_and_the_model_loads_one_and_its_files(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project = make_project(tmp_path)
    (project / ".ironhive" / "settings.yaml").write_text("skills:\n  exclude: [commit-message]\n")
    llm_server.script(
        tool_calls(call("load_skill", {"name": "release-notes"}, id="a")),
        tool_calls(call("load_skill", {"name": "release-notes", "path": "templates/notes.md"}, id="b")),
        tool_calls(call("load_skill", {"name": "release-notes", "path": "../../../secret.txt"}, id="c")),
        tool_calls(call("load_skill", {"name": "commit-message"}, id="d")),
        text("Done."),
    )
    result = run(llm_server, project, "--mode", "plan")

    system = llm_server.chat_requests[0].messages[0]["content"]
    assert "<name>release-notes</name>" in system and "Write release notes from the git log." in system
    assert "<name>review-diff</name>" in system  # bundled skills are there too
    assert "commit-message" not in system  # excluded by the settings
    tools = [tool["function"]["name"] for tool in llm_server.chat_requests[0].json["tools"]]
    assert "load_skill" in tools
    calls = result["tool_calls"]
    assert isinstance(calls, list)
    assert calls[0]["success"] is True and "Use templates/notes.md as the layout." in calls[0]["output"]
    assert "templates/notes.md" in calls[0]["output"] and "name: release-notes" not in calls[0]["output"]
    assert calls[1]["success"] is True and calls[1]["output"] == "## Added\n## Fixed\n"
    assert calls[2]["success"] is False and "do not leak" not in calls[2]["output"]
    assert calls[3]["output"] == "The skill 'commit-message' is disabled in this session."


def test_settings_narrow_the_skills_and_unknown_names_are_reported(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    (project / ".ironhive" / "settings.yaml").write_text("skills:\n  enabled: [release-notes, no-such-skill]\n")
    listing = run_hive("skills", "list", "-C", str(project))
    assert listing.returncode == 0
    assert "enabled skill 'no-such-skill' was not found" in listing.stderr
    rows = {line.split()[0]: line.split()[2] for line in listing.stdout.splitlines()[1:-1]}
    assert rows["release-notes"] == "ok" and rows["review-diff"] == "disabled"


def test_an_unknown_key_in_the_skills_settings_is_a_configuration_error(tmp_path: Path) -> None:
    project = make_project(tmp_path)
    (project / ".ironhive" / "settings.yaml").write_text("skills:\n  enable: [release-notes]\n")
    done = run_hive("skills", "list", "-C", str(project))
    assert done.returncode == 2
    assert "skills.enable: unknown key" in done.stderr and "Traceback" not in done.stderr
