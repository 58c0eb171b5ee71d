"""Permission files: where they are found, how they combine, and why a broken one is an error, never a fallback."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest

from engine.errors import ConfigError
from engine.policy.config import load_permissions
from engine.policy.permission_files import load_permissions_file
from engine.tools.base import ToolContext, ToolSpec
from tests.engine.policy.conftest import make_judge
from tests.support.trust import trust


def write_rules(folder: Path, text: str, name: str = "permissions.yaml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    return path


def project_rules(project: Path, text: str, name: str = "permissions.yaml") -> Path:
    """The project's rules file, in a project the person trusts (how an untrusted one's file counts: tests/engine/trust)."""
    path = write_rules(project / ".ironhive", text, name)
    with contextlib.suppress(ConfigError):  # a broken file cannot be trusted; the test is about its error
        trust(project)
    return path


def user_rules(hive_home: Path, text: str) -> Path:
    return write_rules(hive_home / "config", text)


def load_error(project: Path) -> str:
    with pytest.raises(ConfigError) as caught:
        load_permissions(project)
    return str(caught.value)


def test_without_any_file_the_built_in_defaults_apply(project: Path) -> None:
    config = load_permissions(project)
    assert config.sources == () and config.uses_defaults
    assert {r.describe() for r in config.book.rules("bash")} >= {"bash: git *", "bash: rm -rf *", "bash: sudo *"}


def test_a_project_file_replaces_the_defaults(project: Path, ctx: ToolContext) -> None:
    path = project_rules(project, "permissions:\n  bash:\n    - pattern: 'make *'\n      action: allow\n")
    config = load_permissions(project)
    assert config.sources == (path,) and not config.uses_defaults
    judge = make_judge(config, ctx)
    assert judge("execute_command", command="make test").verdict == "allow"
    assert judge("execute_command", command="git status").verdict == "ask"
    assert judge("read_file", path="src/app.py").verdict == "ask"


def test_include_defaults_keeps_the_built_in_rules_under_the_file(project: Path, ctx: ToolContext) -> None:
    project_rules(
        project, "permissions:\n  include_defaults: true\n  bash:\n    - {pattern: 'make *', action: allow}\n"
    )
    judge = make_judge(load_permissions(project), ctx)
    assert judge("execute_command", command="make test && git status").verdict == "allow"
    assert judge("execute_command", command="make test && sudo ls").verdict == "deny"


def test_yml_and_json_files_are_read_too(project: Path, ctx: ToolContext) -> None:
    project_rules(
        project, json.dumps({"permissions": {"bash": [{"pattern": "make *", "action": "allow"}]}}), "permissions.json"
    )
    assert make_judge(load_permissions(project), ctx)("execute_command", command="make").verdict == "allow"
    project_rules(project, "permissions:\n  bash:\n    - {pattern: 'just *', action: allow}\n", "permissions.yml")
    judge = make_judge(load_permissions(project), ctx)
    assert judge("execute_command", command="just build").verdict == "allow"
    assert judge("execute_command", command="make").verdict == "ask", ".yml comes before .json"


def test_the_highest_priority_wins_and_equal_priorities_go_to_the_stricter_action(
    project: Path, ctx: ToolContext
) -> None:
    project_rules(
        project,
        "permissions:\n"
        "  read:\n"
        "    - {pattern: '**', action: allow}\n"
        "    - {pattern: 'secrets/**', action: deny}\n"
        "    - {pattern: 'secrets/public/**', action: allow, priority: 10}\n"
        "    - {pattern: 'docs/**', action: ask}\n"
        "    - {pattern: 'docs/**', action: allow}\n",
    )
    judge = make_judge(load_permissions(project), ctx)
    assert judge("read_file", path="secrets/key.txt").verdict == "deny"
    assert judge("read_file", path="secrets/public/key.pub").verdict == "allow"
    assert judge("read_file", path="docs/a.md").verdict == "ask"


def test_a_deny_in_the_user_file_holds_against_an_allow_in_the_project_file(
    project: Path, ctx: ToolContext, isolated_hive: Path
) -> None:
    user_rules(
        isolated_hive,
        "permissions:\n  bash:\n    - {pattern: 'npm publish*', action: deny, reason: 'releases go through CI'}\n",
    )
    project_rules(project, "permissions:\n  bash:\n    - {pattern: 'npm *', action: allow, priority: 100}\n")
    config = load_permissions(project)
    assert len(config.sources) == 2
    judge = make_judge(config, ctx)
    assert judge("execute_command", command="npm test").verdict == "allow"
    denied = judge("execute_command", command="npm publish --tag next")
    assert denied.verdict == "deny" and "releases go through CI" in denied.reason
    assert denied.source.startswith(str(isolated_hive / "config" / "permissions.yaml"))


def test_a_deny_in_the_project_file_holds_against_an_allow_in_the_user_file(
    project: Path, ctx: ToolContext, isolated_hive: Path
) -> None:
    user_rules(isolated_hive, "permissions:\n  edit:\n    - {pattern: '**', action: allow, priority: 50}\n")
    project_rules(project, "permissions:\n  edit:\n    - {pattern: 'vendor/**', action: deny}\n")
    judge = make_judge(load_permissions(project), ctx)
    assert judge("write_file", path="vendor/lib.py", content="x").verdict == "deny"
    assert judge("write_file", path="src/a.py", content="x").verdict == "allow"


def test_default_action_and_ask_before_delete_can_be_set(project: Path, ctx: ToolContext) -> None:
    project_rules(
        project,
        "permissions:\n  default_action: deny\n  ask_before_delete: false\n  bash:\n    - {pattern: 'rm *', action: allow}\n"
        "  edit:\n    - {pattern: '*.log', action: allow}\n",
    )
    judge = make_judge(load_permissions(project), ctx)
    assert judge("execute_command", command="rm build.log").verdict == "allow"
    assert judge("execute_command", command="rm notes.txt").verdict == "deny", "the file rm deletes is an edit"
    assert judge("execute_command", command="ls").verdict == "deny"


def test_ask_before_delete_turns_an_allowed_deletion_into_a_question(project: Path, ctx: ToolContext) -> None:
    project_rules(project, "permissions:\n  bash:\n    - {pattern: 'rm *', action: allow}\n")
    judgement = make_judge(load_permissions(project), ctx)("execute_command", command="rm build.log")
    assert judgement.verdict == "ask" and "ask_before_delete" in judgement.reason


def test_external_directory_rules_judge_paths_outside_the_working_directory(project: Path, ctx: ToolContext) -> None:
    project_rules(
        project,
        "permissions:\n  external_directory:\n    - {pattern: '~/outside/**', action: allow}\n    - {pattern: '/etc/**', action: deny}\n",
    )
    judge = make_judge(load_permissions(project), ctx)
    assert judge("read_file", path="../outside/data.txt").verdict == "allow"
    assert judge("read_file", path="src/outside/data.txt").verdict == "allow"
    assert judge("read_file", path="/etc/passwd").verdict == "deny"
    assert judge("read_file", path="/var/log/syslog").verdict == "ask"


def test_read_only_tools_are_declared_by_name_or_pattern(project: Path) -> None:
    project_rules(project, "permissions:\n  read_only_tools: [mcp__docs__*, lookup]\n")
    assert load_permissions(project).book.read_only_tools == ("mcp__docs__*", "lookup")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "permissions:\n  bash:\n    - pattern: 'git *'\n      action: allow\n  bassh: []\n",
            ":5: permissions.bassh: unknown key",
        ),
        (
            "permissions:\n  bash:\n    - pattern: 'git *'\n      action: permit\n",
            ":4: permissions.bash.0.action: should be 'allow', 'ask' or 'deny', not 'permit'",
        ),
        ("permissions:\n  bash:\n    - action: allow\n", ":3: permissions.bash.0.pattern: required but missing"),
        (
            "permissions:\n  bash:\n    - pattern: 'git *'\n      action: allow\n      priorty: 2\n",
            ":5: permissions.bash.0.priorty: unknown key",
        ),
        ("permissions:\n  bash: [\n", "invalid YAML"),
        ("bash:\n  - {pattern: 'git *', action: allow}\n", "permissions: required but missing"),
        ("", "missing the 'permissions:' section"),
        (
            "permissions:\n  default_action: maybe\n",
            ":2: permissions.default_action: should be 'allow', 'ask' or 'deny', not 'maybe'",
        ),
        (
            "permissions:\n  bash:\n    - {pattern: 'git * && rm *', action: allow}\n",
            ":3: permissions.bash.0.pattern: '&&' is not allowed",
        ),
        ("permissions:\n  external_directory:\n    - {pattern: 'tmp/**', action: allow}\n", "match absolute paths"),
        ('permissions:\n  bash:\n    - {pattern: "git \'log", action: allow}\n', "cannot split into words"),
    ],
    ids=[
        "misspelled-section",
        "unknown-action",
        "rule-without-pattern",
        "misspelled-key",
        "malformed",
        "no-permissions-section",
        "empty-file",
        "bad-default-action",
        "compound-pattern",
        "relative-external-pattern",
        "unbalanced-quote",
    ],
)
def test_a_broken_file_is_an_error_naming_the_file_and_line(project: Path, text: str, expected: str) -> None:
    path = project_rules(project, text)
    message = load_error(project)
    assert str(path) in message
    assert expected in message


def test_every_top_level_key_with_a_problem_is_named_and_none_without(project: Path) -> None:
    text = (
        "permissions:\n  bash:\n    - {pattern: 'git *', action: permit}\nguards:\n  prompt_injection: {action: hide}\n"
    )
    path = project_rules(project, text)
    assert load_error(project).splitlines() == [
        f"{path}:3: permissions.bash.0.action: should be 'allow', 'ask' or 'deny', not 'permit'",
        f"{path}:5: guards.prompt_injection.action: should be 'flag' or 'withhold', not 'hide'",
    ]


def test_a_broken_user_file_is_an_error_even_when_the_project_file_is_fine(project: Path, isolated_hive: Path) -> None:
    project_rules(project, "permissions:\n  bash: []\n")
    broken = user_rules(isolated_hive, "permissions:\n  tools:\n    - {pattern: x, action: alow}\n")
    assert f"{broken}:3" in load_error(project)


def test_a_json_file_error_names_the_line(project: Path) -> None:
    text = '{\n  "permissions": {\n    "bash": [\n      {"pattern": "git *", "action": "sometimes"}\n    ]\n  }\n}\n'
    path = project_rules(project, text, "permissions.json")
    assert f"{path}:4: permissions.bash.0.action" in load_error(project)


def test_rule_examples_are_checked_when_the_file_loads(project: Path, ctx: ToolContext) -> None:
    project_rules(
        project,
        "permissions:\n"
        "  bash:\n"
        "    - pattern: 'git push *'\n"
        "      action: ask\n"
        "      examples:\n"
        "        match: ['git push origin main', 'cd src && git push', 'timeout 5 git push']\n"
        "        not_match: ['git pull', 'echo git push']\n"
        "  read:\n"
        "    - pattern: '*.pem'\n"
        "      action: deny\n"
        "      examples: {match: [key.pem, certs/server.pem], not_match: [key.pem.txt]}\n",
    )
    judge = make_judge(load_permissions(project), ctx)
    assert judge("execute_command", command="git push").verdict == "ask"


FAILING_EXAMPLES = """permissions:
  bash:
    - pattern: 'git push *'
      action: ask
      examples:
        match:
          - git push origin
          - git pull
        not_match:
          - git status
          - git push -f
"""


def test_a_failing_example_is_a_configuration_error_naming_its_line(project: Path) -> None:
    path = project_rules(project, FAILING_EXAMPLES)
    message = load_error(project)
    assert (
        f"{path}:8: permissions.bash.0.examples.match.1: example 'git pull' does not match pattern 'git push *'"
        in message
    )
    assert (
        f"{path}:11: permissions.bash.0.examples.not_match.1: example 'git push -f' matches pattern 'git push *'"
        in message
    )
    assert "git push origin" not in message and "git status" not in message


REPOSITORY = Path(__file__).resolve().parents[3]


def test_the_documented_example_and_this_repositorys_own_rules_are_valid(project: Path, ctx: ToolContext) -> None:
    page = (REPOSITORY / "docs" / "permissions.md").read_text()
    example = page.split("\n## Where the rules come from\n")[1].split("```yaml\n")[1].split("```")[0]
    project_rules(project, example)
    judge = make_judge(load_permissions(project), ctx)
    assert judge("execute_command", command="cd web && make deploy-prod").verdict == "deny"
    assert judge("read_file", path="certs/server.pem").verdict == "deny"
    own = load_permissions_file(REPOSITORY / ".ironhive" / "permissions.yaml")
    assert own.file.permissions.include_defaults


def test_changes_to_hives_own_configuration_and_to_git_hooks_are_asked_whatever_the_rules_say(
    project: Path, ctx: ToolContext, isolated_hive: Path
) -> None:
    project_rules(
        project,
        "permissions:\n"
        "  edit: [{pattern: '**', action: allow}]\n"
        "  external_directory: [{pattern: '/**', action: allow}]\n"
        "  bash: [{pattern: 'echo *', action: allow}]\n",
    )
    (project / ".git" / "hooks").mkdir(parents=True)
    judge = make_judge(load_permissions(project), ctx)
    assert judge("write_file", path="src/a.py", content="x").verdict == "allow"
    for path in (
        ".ironhive/permissions.yaml",
        "src/../.ironhive/settings.yaml",
        ".git/hooks/pre-commit",
        ".git/config",
        str(isolated_hive / "config" / "permissions.yaml"),
        "src/vendor/.ironhive/permissions.yaml",
        "src/vendor/.git/hooks/post-checkout",
        "src/vendor/.git/config",
        "src/vendor/.git/modules/lib/config",
        "src/vendor/.git",
        "src/fixture.git/config",
        "src/fixture.git/hooks/pre-commit",
        ".mcp.json",
        "src/hardlink.txt",
        "~/.gitconfig",
        "~/.config/git/config",
        "~/.git-templates/hooks/post-checkout",
        "~/.bashrc",
        "~/.profile",
        "~/.ssh/config",
        "/etc/gitconfig",
        "/usr/share/git-core/templates/hooks/pre-commit",
    ):
        judgement = judge("write_file", path=path, content="x")
        assert judgement.verdict == "ask", path
        assert "always asked" in judgement.reason, path
    assert judge("write_file", path="src/fixture.git/description", content="x").verdict == "allow"
    assert judge("execute_command", command="echo '' > .ironhive/permissions.yml").verdict == "ask"
    assert judge("read_file", path=".ironhive/permissions.yaml").verdict == "ask", "no read rule in this file"


def test_a_link_to_a_protected_file_is_judged_where_it_leads(project: Path, ctx: ToolContext) -> None:
    project_rules(project, "permissions:\n  edit: [{pattern: '**', action: allow}]\n")
    (project / ".git" / "hooks").mkdir(parents=True)
    (project / "src" / "hooks").symlink_to(project / ".git" / "hooks", target_is_directory=True)
    (project / "src" / "rules.yaml").symlink_to(project / ".ironhive" / "permissions.yaml")
    judge = make_judge(load_permissions(project), ctx)
    assert judge("write_file", path="src/hooks/pre-commit", content="x").verdict == "ask"
    assert judge("edit_file", path="src/rules.yaml", old_string="a", new_string="b").verdict == "ask"


def test_files_in_the_arguments_of_allowed_commands_meet_the_path_rules(project: Path, ctx: ToolContext) -> None:
    project_rules(
        project,
        "permissions:\n"
        "  read: [{pattern: '**', action: allow}, {pattern: 'secrets/**', action: deny}]\n"
        "  edit: [{pattern: '**', action: allow}]\n"
        "  bash: [{pattern: 'cp *', action: allow}, {pattern: 'tee *', action: allow}, {pattern: 'cat *', action: allow}]\n",
    )
    judge = make_judge(load_permissions(project), ctx)
    assert judge("execute_command", command="cp README.md src/notes.md").verdict == "allow"
    assert judge("execute_command", command="cat src/app.py | tee src/copy.py").verdict == "allow"
    assert judge("execute_command", command="cat secrets/key.txt").verdict == "deny"
    assert judge("execute_command", command="cp secrets/key.txt src/").verdict == "deny"
    asked = judge("execute_command", command="cp src/evil.yaml .ironhive/permissions.yaml")
    assert asked.verdict == "ask" and "always asked" in asked.reason
    assert judge("execute_command", command="cp -t ~ src/app.py").verdict == "ask"
    assert judge("execute_command", command="tee ~/.bashrc < src/app.py").verdict == "ask"
    assert judge("execute_command", command="cp src/app.py $DEST").verdict == "ask"
    assert judge("execute_command", command="cp README.md src/o*").verdict == "ask", "src/outside leads out"
    assert judge("execute_command", command="cat src/l*/*").verdict == "deny", "the glob reaches secrets/"
    assert judge("execute_command", command="cat src/p*/*.py").verdict == "allow"


def test_a_rule_of_higher_priority_overrides_a_table_verdict_and_a_deny_still_holds(
    project: Path, ctx: ToolContext
) -> None:
    project_rules(
        project,
        "permissions:\n"
        "  include_defaults: true\n"
        "  bash:\n"
        "    - {pattern: 'git -c *', action: allow}\n"
        "    - {pattern: 'git grep *', action: allow, priority: 1}\n"
        "    - {pattern: 'git log *', action: deny}\n",
    )
    judge = make_judge(load_permissions(project), ctx)
    assert judge("execute_command", command="git -c x=y status").verdict == "ask", "equal priority: the stricter wins"
    assert judge("execute_command", command="git grep -O x").verdict == "allow"
    assert judge("execute_command", command="git log").verdict == "deny"
    assert judge("execute_command", command="git status").verdict == "allow"


SANDBOX_RULES = (
    "permissions:\n"
    "  include_defaults: true\n"
    "  bash:\n"
    "    - {pattern: 'just *', action: allow, sandboxed_only: true}\n"
    "    - {pattern: 'tox *', action: allow}\n"
)


def test_a_rule_may_count_only_when_commands_run_in_the_sandbox(project: Path, ctx: ToolContext) -> None:
    project_rules(project, SANDBOX_RULES)
    inside = make_judge(load_permissions(project), ctx)
    outside = make_judge(load_permissions(project, sandboxed=False), ctx)
    assert load_permissions(project, sandboxed=False).sandboxed is False
    assert inside("execute_command", command="just test").verdict == "allow"
    assert outside("execute_command", command="just test").verdict == "ask"
    assert outside("execute_command", command="tox -e py").verdict == "allow", "the file's own choice"
    assert inside("execute_command", command="npm test").verdict == "allow"
    assert outside("execute_command", command="npm test").verdict == "ask"


def test_read_only_mcp_tools_follow_mcp_read_only_and_rules_override_it(project: Path, ctx: ToolContext) -> None:
    spec = ToolSpec(name="mcp__docs__search", description="", parameters={}, read_only=True, kind="mcp")
    assert make_judge(load_permissions(project), ctx, spec)("mcp__docs__search").verdict == "ask"  # a claim only
    project_rules(project, "permissions:\n  include_defaults: true\n  mcp_read_only: allow\n")
    allowed = make_judge(load_permissions(project), ctx, spec)("mcp__docs__search")
    assert allowed.verdict == "allow" and "read-only" in allowed.reason
    project_rules(project, "permissions:\n  mcp_tools: [{pattern: 'mcp__other__*', action: allow}]\n")
    assert make_judge(load_permissions(project), ctx, spec)("mcp__docs__search").verdict == "ask", "no mcp_read_only"
    project_rules(
        project,
        "permissions:\n  include_defaults: true\n  mcp_tools: [{pattern: 'mcp__docs__*', action: deny}]\n",
    )
    assert make_judge(load_permissions(project), ctx, spec)("mcp__docs__search").verdict == "deny"


def test_patterns_can_ignore_case_and_their_examples_are_checked_that_way(project: Path, ctx: ToolContext) -> None:
    project_rules(
        project,
        "permissions:\n"
        "  read:\n"
        "    - {pattern: '**', action: allow}\n"
        "    - pattern: '*.sqlite'\n"
        "      action: deny\n"
        "      ignore_case: true\n"
        "      examples: {match: [data/App.SQLite], not_match: [data/app.sqlite3]}\n",
    )
    judge = make_judge(load_permissions(project), ctx)
    assert judge("read_file", path="db/Prod.SQLITE").verdict == "deny"
    assert judge("read_file", path="db/prod.sqlite3").verdict == "allow"
