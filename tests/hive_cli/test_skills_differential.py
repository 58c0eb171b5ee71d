"""`hive skills validate|read-properties|to-prompt` print, byte for byte, what the reference CLI prints.

The reference (skills-ref 0.1.1, command `agentskills`) takes one path per run, so a small driver runs
its click command once per folder inside one Python process; `hive skills validate` takes all the
folders at once, and its output must be the reference's outputs concatenated — shown as hive shows all
text from outside it (control and bidi characters as escapes, hive_cli.terminal_text), since a skill's
name or description may hold an escape sequence. Folders where the reference crashes are checked
separately: hive reports them cleanly with exit status 1.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hive_cli.terminal_text import visible_lines
from tests.engine.skills.skill_cases import SkillCase, skill_case
from tests.support.cli import run_hive

AGENTSKILLS = Path(sys.executable).parent / "agentskills"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "real_skills"
DRIVER = """
import contextlib, io, json, sys
from skills_ref.cli import main
command, paths, results = sys.argv[1], sys.argv[2:], []
for path in paths:
    out, err, code, crash = io.StringIO(), io.StringIO(), 0, None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main([command, "--", path], prog_name="agentskills")
        except SystemExit as exc:
            code = exc.code or 0
        except Exception as exc:
            code, crash = 1, type(exc).__name__
    results.append({"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue(), "crash": crash})
json.dump(results, sys.stdout)
"""


def reference_outputs(command: str, paths: list[str], cwd: Path) -> list[dict[str, object]]:
    """What the reference CLI prints for each path, run in one process."""
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, command, *paths], cwd=cwd, capture_output=True, text=True, check=True
    )
    results: list[dict[str, object]] = json.loads(done.stdout)
    return results


def write_cases(cases: list[SkillCase], base: Path) -> list[str]:
    return [str(case.write(base / f"case-{index:03d}").relative_to(base)) for index, case in enumerate(cases)]


def assert_hive_matches_reference(paths: list[str], cwd: Path) -> int:
    """Validate ``paths`` with both; hive's output must equal the reference's concatenated. Returns the count compared."""
    expected = reference_outputs("validate", paths, cwd)
    clean = [(path, result) for path, result in zip(paths, expected, strict=True) if result["crash"] is None]
    crashed = [path for path, result in zip(paths, expected, strict=True) if result["crash"] is not None]
    if clean:
        done = run_hive("skills", "validate", "--", *(path for path, _ in clean), cwd=cwd)
        assert done.stderr == visible_lines("".join(str(result["stderr"]) for _, result in clean))
        assert done.stdout == visible_lines("".join(str(result["stdout"]) for _, result in clean))
        assert done.returncode == max(int(str(result["exit"])) for _, result in clean)
    if crashed:
        assert_clean_failures(crashed, cwd)
    return len(paths)


def assert_clean_failures(paths: list[str], cwd: Path) -> None:
    """Each path gets the failure header and exactly one problem line; no traceback, exit 1."""
    done = run_hive("skills", "validate", "--", *paths, cwd=cwd)
    assert (done.returncode, done.stdout) == (1, "")
    lines = done.stderr.splitlines()
    assert lines[0::2] == [visible_lines(f"Validation failed for {Path(path)}:") for path in paths]
    assert all(line.startswith("  - ") for line in lines[1::2]) and len(lines) == 2 * len(paths)


@settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(st.lists(skill_case(), min_size=80, max_size=80))
def test_validate_prints_what_the_reference_prints_for_generated_skills(cases: list[SkillCase]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        assert_hive_matches_reference(write_cases(cases, base), base)


def test_validate_prints_what_the_reference_prints_for_real_world_skills() -> None:
    expected = json.loads((FIXTURES / "expected.json").read_text())
    paths = sorted(expected)
    done = run_hive("skills", "validate", "--", *paths, cwd=FIXTURES)
    assert done.stdout == "".join(expected[path]["stdout"] for path in paths)
    assert done.stderr == "".join(expected[path]["stderr"] for path in paths)
    assert done.returncode == 1
    assert assert_hive_matches_reference(paths, FIXTURES) == len(paths) == 24


def test_paths_are_shown_as_the_reference_shows_them(tmp_path: Path) -> None:
    skill = tmp_path / "my-skill"
    skill.mkdir()
    (skill / "SKILL.md").write_text("---\nname: my-skill\ndescription: Does things.\n---\nBody\n")
    lower = tmp_path / "lower"
    lower.mkdir()
    (lower / "skill.md").write_text("---\nname: lower\ndescription: Lower-case file name.\n---\n")
    paths = [".", "SKILL.md", "./", "../my-skill/", "../my-skill/SKILL.md", "../lower/skill.md", str(skill)]
    assert assert_hive_matches_reference(paths, skill) == len(paths)


def test_where_the_reference_crashes_hive_fails_cleanly(tmp_path: Path) -> None:
    cases = {
        "bad-bytes": b"---\nname: bad-bytes\ndescription: caf\xe9\n---\n",
        "utf-16": "---\nname: utf-16\ndescription: x\n---\n".encode("utf-16"),
        "bell": b"---\nname: bell\ndescription: ring \x07 ring\n---\n",
    }
    for name, content in cases.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_bytes(content)
    (tmp_path / "folder" / "SKILL.md").mkdir(parents=True)
    paths = [*cases, "folder"]
    assert all(result["crash"] for result in reference_outputs("validate", paths, tmp_path))
    done = run_hive("skills", "validate", "--", *paths, cwd=tmp_path)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr == (
        "Validation failed for bad-bytes:\n"
        "  - SKILL.md is not valid UTF-8 text (invalid continuation byte at byte 36, line 3); save it as UTF-8\n"
        "Validation failed for utf-16:\n"
        "  - SKILL.md is not valid UTF-8 text (invalid start byte at byte 0, line 1); save it as UTF-8\n"
        "Validation failed for bell:\n"
        "  - Invalid YAML in frontmatter: character U+0007 (line 3) is not allowed in YAML\n"
        "Validation failed for folder:\n"
        "  - SKILL.md is a directory, not a file\n"
    )


def test_usage_errors_exit_2_like_the_reference(tmp_path: Path) -> None:
    for args in (["validate", "--", "missing"], ["read-properties"], ["to-prompt"], ["no-such-command"]):
        reference = subprocess.run([str(AGENTSKILLS), *args], cwd=tmp_path, capture_output=True, text=True)
        done = run_hive("skills", *args, cwd=tmp_path)
        assert (done.returncode, reference.returncode) == (2, 2)
        assert done.stderr.startswith("Usage: ") and " skills" in done.stderr and "Traceback" not in done.stderr
    assert "'missing' does not exist" in run_hive("skills", "validate", "missing", cwd=tmp_path).stderr


def test_read_properties_prints_what_the_reference_prints(tmp_path: Path) -> None:
    contents = {
        "full": "---\nname: full\ndescription: ' Ünïcode & <tags> '\nlicense: MIT\ncompatibility: ''\n"
        "allowed-tools: Read Grep\nmetadata:\n  cpu:\n    cores: 2\n  tags:\n    - a\n  v: 1.10\n---\n",
        "no-description": "---\nname: no-description\n---\n",
        "bad-yaml": "---\nname: bad-yaml\ndescription: a: b\n---\n",
        "Not-Valid": "---\nname: Not Valid\ndescription: read-properties does not validate\nversion: 2\n---\n",
    }
    for name, text in contents.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "SKILL.md").write_text(text)
    paths = [*contents, "full/SKILL.md", "missing-file.txt"]
    (tmp_path / "missing-file.txt").write_text("not a skill")
    expected = reference_outputs("read-properties", paths, tmp_path)
    for path, result in zip(paths, expected, strict=True):
        done = run_hive("skills", "read-properties", path, cwd=tmp_path)
        assert (done.returncode, done.stdout, done.stderr) == (result["exit"], result["stdout"], result["stderr"])


def test_to_prompt_prints_what_the_reference_prints() -> None:
    expected = json.loads((FIXTURES / "expected.json").read_text())
    readable = [path for path in sorted(expected) if "YAML" not in expected[path]["stderr"]]
    readable = [path for path in readable if "must start with" not in expected[path]["stderr"]]
    reference = subprocess.run(
        [str(AGENTSKILLS), "to-prompt", *readable], cwd=FIXTURES, capture_output=True, text=True, check=True
    )
    done = run_hive("skills", "to-prompt", *readable, cwd=FIXTURES)
    assert (done.returncode, done.stdout, done.stderr) == (0, reference.stdout, "")
    failing = [readable[0], "UiPath__skills/uipath-feedback"]
    reference = subprocess.run([str(AGENTSKILLS), "to-prompt", *failing], cwd=FIXTURES, capture_output=True, text=True)
    done = run_hive("skills", "to-prompt", *failing, cwd=FIXTURES)
    assert (done.returncode, done.stdout, done.stderr) == (1, "", reference.stderr)
