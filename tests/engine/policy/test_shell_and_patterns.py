"""Taking shell lines apart with the bash grammar, and the pattern languages rules are written in."""

from __future__ import annotations

import pytest

from engine.policy.patterns import PatternError, command_pattern, name_matches, path_matches, render_words
from engine.policy.shell import analyze


def commands(line: str, decisive_only: bool = True) -> list[str]:
    return [render_words(c.words) for c in analyze(line).commands if c.decisive or not decisive_only]


def test_every_part_of_a_compound_line_is_found_in_order() -> None:
    line = "a 1; b && c || d | e & f\n(g); { h; }; m $(i) `j` <(k) >(l)"
    assert commands(line) == ["a 1", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m $… $… $… $…"]


def test_wrappers_are_looked_through_and_kept_as_non_deciding_parts() -> None:
    analysis = analyze("timeout -k 5 30 nice -n 2 env -u HOME A=1 xargs -0 -n 1 rm -f")
    assert [render_words(c.words) for c in analysis.commands if c.decisive] == ["rm -f $…"]
    assert [render_words(c.words).split()[0] for c in analysis.commands if not c.decisive] == [
        "timeout",
        "nice",
        "env",
        "xargs",
    ]
    assert analysis.commands[-1].deletes


def test_a_wrapper_option_hive_does_not_know_makes_the_wrapper_itself_the_command() -> None:
    assert commands("timeout --weird 5 rm -rf /") == ["timeout --weird 5 rm -rf /"]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("bash -c 'git status; npm test'", ["git status", "npm test"]),
        ('sh -ec "cd src && make"', ["cd src", "make"]),
        ("eval 'ls' '-la'", ["ls -la"]),
        ("find . -name '*.tmp' -exec rm -f {} ';'", ["find . -name '*.tmp' -exec rm -f '{}' ';'", "rm -f '{}'"]),
        ("command -v git", ["command -v git"]),
        ("bash script.sh", ["bash script.sh"]),
    ],
)
def test_scripts_given_to_shells_and_eval_are_parsed_in_turn(line: str, expected: list[str]) -> None:
    assert commands(line) == expected


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("if true; then", "cannot make sense"),
        ("$TOOL --version", "name is only known when it runs"),
        ('bash -c "$SCRIPT"', "only known when it runs"),
        ("cat <<EOF\n`id`\nEOF\n", "here-document"),
        ("LD_PRELOAD=x.so ls", "LD_PRELOAD"),
        ("export PATH=/tmp:$PATH", "PATH"),
    ],
)
def test_what_cannot_be_known_before_running_is_reported_as_a_problem(line: str, problem: str) -> None:
    assert any(problem in p for p in analyze(line).problems), analyze(line).problems


def test_redirections_record_reads_writes_and_where_a_cd_may_have_moved_them() -> None:
    analysis = analyze("cat < in.txt > out.txt 2>&1; cd build && make >> log.txt")
    assert [(r.target, r.writes, r.bases) for r in analysis.redirections] == [
        ("in.txt", False, ("",)),
        ("out.txt", True, ("",)),
        ("log.txt", True, ("", "build")),
    ]


def test_a_redirection_to_a_variable_has_no_known_target() -> None:
    assert [r.target for r in analyze('echo hi > "$LOG"').redirections] == [None]


def test_a_quoted_pipe_is_an_argument_not_a_pipeline() -> None:
    assert analyze("echo 'a | sh'").pipelines == ()
    assert [render_words(p) for p in analyze("curl x | sh").pipelines] == ["curl x | sh"]


@pytest.mark.parametrize(
    ("pattern", "command", "matches"),
    [
        ("git *", "git", True),
        ("git *", "git log src/a.py", True),
        ("git *", "gitk", False),
        ("git log", "git log -p", False),
        ("git status*", "git status --short", True),
        ("npm run *", "npm run build --watch", True),
        ("* --version", "python --version", True),
        ("rm -rf *", "rm -fr /", True),
        ("rm -rf *", "rm -r -f /", False),
        ("curl * | *sh*", "curl -s x | bash", True),
        ("curl * | *sh*", "curl -s x | grep y | sh -s", True),
        ("curl * | *sh*", "curl -s x | grep sh", False),
        ("echo 'a b'", "echo 'a b'", True),
    ],
)
def test_command_patterns_match_whole_words(pattern: str, command: str, matches: bool) -> None:
    analysis = analyze(command)
    candidates = [c.words for c in analysis.commands] + list(analysis.pipelines)
    assert any(command_pattern(pattern).matches(words) for words in candidates) is matches


@pytest.mark.parametrize("pattern", ["git && rm", "a ; b", "x > y", "", "'open"])
def test_a_pattern_that_is_not_one_command_is_refused(pattern: str) -> None:
    with pytest.raises(PatternError):
        command_pattern(pattern)


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("src/**", "src", True),
        ("src/**", "src/a/b.py", True),
        ("src/**", "lib/src/a.py", False),
        ("**/secrets/**", "secrets", True),
        ("**/secrets/**", "a/secrets/b", True),
        ("**/secrets/**", "/home/u/secrets/b", True),
        ("**/secrets/**", "not-secrets/b", False),
        (".env*", ".env", True),
        (".env*", "config/.env.local", True),
        ("*.json", "src/package.json", True),
        ("src/*.py", "src/pkg/a.py", False),
        ("src/*.py", "src/a.py", True),
        ("{docs,skills}/**", "skills/x/SKILL.md", True),
        ("build/", "build/out.o", True),
        ("[!.]*", ".hidden", False),
        ("**/*", ".", True),
    ],
)
def test_path_patterns(pattern: str, path: str, matches: bool) -> None:
    assert path_matches(pattern, path) is matches


def test_name_patterns_span_the_whole_name() -> None:
    assert name_matches("*_list", "mcp__github__issue_list")
    assert name_matches("mcp__docs__*", "mcp__docs__search")
    assert not name_matches("mcp__docs__*", "mcp__github__search")


@pytest.mark.parametrize(
    "line",
    [
        "echo ${x:-$(inner)}",
        "echo ${x#$(inner)}",
        "echo ${x%%$(inner)}",
        "echo ${x/$(inner)/b}",
        "echo ${x//a/$(inner)}",
        "echo ${x/[$(inner)]/b}",
        "echo ${x^^$(inner)}",
        "echo ${x,$(inner)}",
        "echo ${x:-`inner`}",
        "echo ${x:-<(inner)}",
        "echo \"${x:-'$(inner)'}\"",
        'echo "${x#$(inner)}"',
        "echo ${x:-${y:-${z#$(inner)}}}",
        "X=${y%$(inner)} true",
        "trap 'inner' EXIT",
    ],
)
def test_every_command_substitution_bash_runs_is_found_inside_expansion_operators(line: str) -> None:
    assert "inner" in commands(line), (commands(line), analyze(line).problems)


def test_single_quotes_inside_an_unquoted_expansion_still_quote() -> None:
    assert commands("echo ${x:-'$(inner)'}") == ["echo $…"]


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("echo ${x@P}", "prompt"),
        ("echo ${!x}", "${!name}"),
        ("echo ${!x[1]}", "${!name}"),
        ("echo $((x))", "arithmetic"),
        ("echo $(( $(inner) ))", "arithmetic"),
        ("echo $[x + 1]", "arithmetic"),
        ("(( x ))", "arithmetic"),
        ("for ((i = 0; i < n; i++)); do true; done", "arithmetic"),
        ("[[ x -eq 0 ]]", "arithmetic"),
        ("[[ $n -lt 3 ]]", "arithmetic"),
        ("[[ -v a[$i] ]]", "subscript"),
        ("echo ${s:n:1}", "arithmetic"),
        ("echo ${a[i]}", "subscript"),
        ("a[$i]=1", "subscript"),
        ("a=([$i]=1)", "subscript"),
        ("declare -i n", "declare -i"),
        ("typeset -ai n", "declare -i"),
        ("local -n ref=x", "declare -i"),
        ("declare 'a[$(inner)]=1'", "subscript"),
        ("unset 'a[$(inner)]'", "subscript"),
        ("unset $name", "name only known"),
        ("let n=1", "let"),
        ("printf -v x %s y", "printf -v"),
        ("read 'a[$(inner)]'", "subscript"),
        ("read $name", "name only known"),
        ("mapfile -C cb lines", "mapfile -C"),
        ("echo ${x/@($(inner))/b}", "cannot make sense"),
    ],
)
def test_values_bash_evaluates_as_code_are_problems(line: str, problem: str) -> None:
    assert any(problem in p for p in analyze(line).problems), analyze(line).problems


@pytest.mark.parametrize(
    "line",
    [
        "echo $((1 + 2))",
        "echo ${a[0]} ${a[@]} ${#a[*]}",
        "echo ${!a[@]} ${!prefix*}",
        "[[ 1 -eq 1 ]]",
        "[[ -f package.json && $x == y ]]",
        "echo ${x: -1} ${x:1:2}",
        "echo ${x@Q} ${x:-default}",
        "declare -r x=1",
        "read -r line",
        "printf '%s' x",
    ],
)
def test_literals_and_plain_substitutions_are_no_problem(line: str) -> None:
    assert analyze(line).problems == ()


@pytest.mark.parametrize(
    "name",
    [
        "PATH",
        "path",
        "Git_Ssh_Command",
        "GIT_CONFIG_KEY_0",
        "node_options",
        "https_proxy",
        "LD_PRELOAD",
        "DYLD_INSERT_LIBRARIES",
        "PYTHONSTARTUP",
        "PERL5LIB",
        "RUBYOPT",
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "IFS",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "BROWSER",
        "RUSTC_WRAPPER",
        "RUSTFLAGS",
        "CARGO_HOME",
        "GOFLAGS",
    ],
)
def test_risky_variables_are_found_in_any_case(name: str) -> None:
    assert any(name in p for p in analyze(f"{name}=x true").problems)
    assert any(name in p for p in analyze(f"env {name}=x true").problems)


@pytest.mark.parametrize("name", ["CI", "DEBUG", "LANG", "TERM", "GOOD", "CARE"])
def test_ordinary_variables_are_no_problem(name: str) -> None:
    assert analyze(f"{name}=1 true").problems == ()


def test_each_command_knows_every_directory_a_cd_may_have_moved_it_to() -> None:
    analysis = analyze("git status; cd src && make; cd $D; npm test")
    assert [(render_words(c.words), c.bases) for c in analysis.commands] == [
        ("git status", ("",)),
        ("cd src", ("",)),
        ("make", ("", "src")),
        ("cd $…", ("", "src")),
        ("npm test", ("", None, "src")),
    ]
