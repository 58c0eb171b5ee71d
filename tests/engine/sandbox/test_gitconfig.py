"""The git configuration a sandboxed command sees: read as git reads it, and only what holds no secret."""

from __future__ import annotations

import subprocess
from pathlib import Path

from engine.sandbox.gitconfig import _entries, filtered_git_config

CONFIG = "\n".join(
    [
        "# a comment",
        "[user]",
        "\tname = Ada Lovelace   ; trailing comment",
        '\temail = "ada@example.invalid"',
        "\tsigningkey = ABCDEF",
        "[core]",
        "\tautocrlf = input",
        '\teditor = "vim -c \\"set tw=72\\""',
        "\tsshCommand = ssh -i ~/.ssh/deploy",
        "\thooksPath = ~/.githooks",
        "\texcludesFile = ~/.gitignore_global",
        "[Alias]",
        "\tlg = log --graph \\",
        "\t  --oneline",
        "\tst = status",
        '[diff "lockb"]',
        "\ttextconv = bun",
        "\tbinary",
        '[url "https://ada:hunter2-token@git.example.invalid/"]',
        "\tinsteadOf = https://git.example.invalid/",
        "[credential]",
        "\thelper = store",
        '[http "https://git.example.invalid/"]',
        "\textraHeader = Authorization: Bearer hunter2-bearer",
        "[include]",
        "\tpath = ~/.gitconfig.private",
        "[init]",
        "\tdefaultBranch = main",
        "[alias]",
        '\tleak = "!echo https://u:hunter2-url@h.example.invalid"',
    ]
)


def git_list(path: Path) -> list[tuple[str, str | None]]:
    """What git itself reads from the file (None: a bare name, a true boolean)."""
    done = subprocess.run(["git", "config", "--file", str(path), "--null", "--list"], capture_output=True, check=True)
    records = [record.partition("\n") for record in done.stdout.decode().split("\0") if record]
    return [(key, value if newline else None) for key, newline, value in records]


def test_the_file_is_read_as_git_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "gitconfig"
    path.write_text(CONFIG)
    assert _entries(path) == git_list(path)


def test_the_copy_keeps_who_commits_and_how_git_behaves_and_nothing_secret(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(CONFIG)
    copy = filtered_git_config({"HOME": str(home)}, tmp_path / "private")
    assert copy is not None and copy.parent == tmp_path / "private"
    kept = dict(git_list(copy))
    assert kept["user.name"] == "Ada Lovelace" and kept["user.email"] == "ada@example.invalid"
    assert kept["core.editor"] == 'vim -c "set tw=72"' and kept["alias.lg"] == "log --graph    --oneline"
    assert kept["init.defaultbranch"] == "main" and kept["diff.lockb.textconv"] == "bun"
    assert "diff.lockb.binary" in kept and kept["diff.lockb.binary"] is None  # still a bare true
    text = copy.read_text()
    assert "hunter2" not in text and "signingkey" not in text
    for dropped in ("credential", "url", "http", "include", "sshcommand", "hookspath"):
        assert dropped not in text.lower(), dropped


def test_no_configuration_no_copy(tmp_path: Path) -> None:
    assert filtered_git_config({"HOME": str(tmp_path)}, tmp_path / "private") is None
