"""Destructive git asks: what rewrites or deletes refs, stashes, the reflog, the index or untracked files, which
hive's undo (files only, never .git) cannot bring back; ordinary reads and safe writes stay allowed."""

from __future__ import annotations

import pytest

from engine.policy.command_verdicts import TableJudge
from engine.policy.config import default_permissions
from engine.policy.shell import analyze
from engine.tools.base import ToolContext
from tests.engine.policy.conftest import Judge, make_judge

DESTRUCTIVE = {
    "git reset --hard": "undo does not cover .git",
    "git reset --hard HEAD~5": "undo does not cover .git",
    "git reset --keep HEAD~1": "undo does not cover .git",
    "git reset --merge": "undo does not cover .git",
    "git stash clear": "undo does not cover .git",
    "git stash drop": "undo does not cover .git",
    "git stash drop stash@{1}": "undo does not cover .git",
    "git branch -D main": "undo does not cover .git",
    "git branch --delete --force main": "undo does not cover .git",
    "git branch -df main": "undo does not cover .git",
    "git branch -f main HEAD~3": "undo does not cover .git",
    "git branch -M old main": "undo does not cover .git",
    "git tag -d v1": "undo does not cover .git",
    "git tag -f v1 HEAD~2": "undo does not cover .git",
    "git clean -f": "deletes untracked files",
    "git clean -fdx": "deletes untracked files",
    "git checkout -- .": "whole tree",
    "git checkout .": "whole tree",
    "git checkout HEAD~3 -- .": "whole tree",
    "git checkout -- ':!src'": "whole tree",
    "git checkout -f main": "undo does not cover .git",
    "git checkout -B main origin/main": "undo does not cover .git",
    "git restore .": "whole tree",
    "git restore --staged .": "whole tree",
    "git restore --staged --worktree :/": "whole tree",
    "git switch --discard-changes main": "undo does not cover .git",
    "git switch -f main": "undo does not cover .git",
    "git switch -C main origin/main": "undo does not cover .git",
    "git push --force": "history on the remote",
    "git push -f origin main": "history on the remote",
    "git push --force-with-lease": "history on the remote",
    "git push origin +main": "history on the remote",
    "git push origin :old-branch": "history on the remote",
    "git push --delete origin old-branch": "history on the remote",
    "git update-ref -d refs/heads/main": "undo does not cover .git",
    "git reflog expire --expire=now --all": "undo does not cover .git",
    "git reflog delete HEAD@{1}": "undo does not cover .git",
    "git gc --prune=now": "undo does not cover .git",
    "git prune": "undo does not cover .git",
    "git filter-branch --tree-filter 'rm -f x' HEAD": "undo does not cover .git",
    "git rebase main": "undo does not cover .git",
    "git rebase -i HEAD~3": "undo does not cover .git",
}

SAFE = [
    "git status",
    "git diff",
    "git log --oneline -5",
    "git show HEAD",
    "git reflog",
    "git reflog show main",
    "git stash list",
    "git stash",
    "git stash pop",
    "git add src/app.py",
    "git add .",
    "git commit -m 'fix the app'",
    "git commit --amend -m 'fix the app'",  # the amended commit stays in the reflog; the files do not change
    "git branch feature",
    "git branch -d merged-feature",  # refuses a branch whose commits are not merged
    "git branch -m old new",
    "git switch feature",
    "git switch -c feature",
    "git checkout feature",
    "git checkout -b feature",
    "git checkout -",
    "git checkout -- src/app.py",
    "git restore src/app.py",
    "git restore --staged src/app.py",
    "git reset",
    "git reset -- src/app.py",
    "git reset --soft HEAD~1",  # the commits stay in the reflog; the files do not change
    "git tag v2",
    "git merge feature",
    "git cherry-pick abc1234",
]


@pytest.mark.parametrize(("command", "why"), DESTRUCTIVE.items(), ids=list(DESTRUCTIVE))
def test_each_destructive_git_command_asks_and_says_why(command: str, why: str, judge: Judge, ctx: ToolContext) -> None:
    judgement = judge("execute_command", command=command)
    assert judgement.verdict == "ask", judgement.reason
    assert why in judgement.reason
    unsandboxed = make_judge(default_permissions(sandboxed=False), ctx)("execute_command", command=command)
    assert unsandboxed.verdict == "ask", unsandboxed.reason


@pytest.mark.parametrize("command", SAFE)
def test_ordinary_reads_and_safe_writes_stay_allowed(command: str, judge: Judge) -> None:
    judgement = judge("execute_command", command=command)
    assert judgement.verdict == "allow", judgement.reason


@pytest.mark.parametrize("command", ["git stash drop", "git clean -fdx", "git reset --hard"])
def test_the_table_itself_asks_whatever_the_other_rules_say(command: str) -> None:
    [parsed] = [c for c in analyze(command).commands if c.decisive]
    verdict = TableJudge()(parsed.words)
    assert verdict is not None and verdict[0] == "ask"
