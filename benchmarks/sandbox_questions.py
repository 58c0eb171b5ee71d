"""How many questions an ordinary session asks, with the sandbox and without it (same calls, same rules files).

A scripted session of the usual kind (read, edit, test, build, commit, look at the history) goes
through the real approval gate over the real tools in a fresh git project; an approver that says
yes to everything counts the questions. With the sandbox on, what runs the project's own code
(make, pytest, npm test...) is allowed because the sandbox contains it; with it off, it is asked.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.events import ToolCall
from engine.policy.compose import guarded_toolset
from engine.policy.config import load_permissions
from engine.policy.gate import ApprovalRequest, Decision
from engine.policy.modes import ModeManager
from engine.sandbox.base import NoSandbox
from engine.sandbox.bubblewrap import BubblewrapSandbox
from engine.sandbox.options import SandboxOptions
from engine.tools.base import ToolContext
from engine.tools.builtin import builtin_tools
from engine.tools.registry import ToolRegistry

SESSION: list[tuple[str, dict[str, Any]]] = [
    ("list_directory", {}),
    ("read_file", {"path": "src/calc.py"}),
    ("grep_files", {"pattern": "def ", "path": "src"}),
    ("execute_command", {"command": "git status --short && git log --oneline -3"}),
    ("edit_file", {"path": "src/calc.py", "old_string": "a + b", "new_string": "a + b  # sum"}),
    ("write_file", {"path": "tests/test_calc.py", "content": "from src.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"}),
    ("execute_command", {"command": "make test"}),
    ("execute_command", {"command": "make build && ls build"}),
    ("execute_command", {"command": "git diff --stat && git diff src/calc.py | head -20"}),
    ("execute_command", {"command": "grep -rn TODO src tests | wc -l"}),
    ("execute_command", {"command": "git add src tests && git commit -q -m 'Test add' && git log --oneline -1"}),
    ("execute_command", {"command": "git show --stat HEAD"}),
    ("todo_write", {"todos": [{"content": "add tests", "status": "completed"}]}),
]  # fmt: skip
MAKEFILE = "test:\n\tpython3 -c 'import sys; sys.exit(0)'\nbuild:\n\tmkdir -p build && touch build/calc.bin\n"


class CountingApprover:
    """Says yes to everything and counts what it was asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def decide(self, request: ApprovalRequest) -> Decision:
        self.asked.append(request.summary)
        return Decision(allowed=True)


def make_project(root: Path) -> None:
    (root / "src").mkdir()
    (root / "tests").mkdir()
    (root / "src" / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "Makefile").write_text(MAKEFILE)
    for command in (
        ["git", "init", "-q"],
        ["git", "config", "user.name", "bench"],
        ["git", "config", "user.email", "bench@example.com"],
        ["git", "add", "."],
        ["git", "commit", "-q", "-m", "start"],
    ):
        subprocess.run(command, cwd=root, check=True, capture_output=True)


async def session(sandboxed: bool) -> tuple[int, list[str], int]:
    with tempfile.TemporaryDirectory(dir="/var/tmp") as folder:
        root = Path(folder)
        make_project(root)
        sandbox = BubblewrapSandbox(SandboxOptions()) if sandboxed else NoSandbox()
        approver = CountingApprover()
        tools = ToolRegistry(builtin_tools(sandbox=sandbox))
        toolset = guarded_toolset(tools, load_permissions(root, sandboxed=sandboxed), approver, ModeManager())
        failures = 0
        for index, (name, arguments) in enumerate(SESSION):
            ctx = ToolContext(cwd=root, data_dir=root / ".data")
            result = await toolset.call(ToolCall(id=f"c{index}", name=name, arguments=arguments), ctx)
            failures += result.success is False
        return len(approver.asked), approver.asked, failures


def main() -> None:
    on_count, on_asked, on_failed = asyncio.run(session(sandboxed=True))
    off_count, off_asked, off_failed = asyncio.run(session(sandboxed=False))
    print(f"questions in an ordinary session of {len(SESSION)} calls (read, edit, test, build, commit, history)")
    print(f"  sandbox on  (workspace-write): {on_count:2d} questions, {on_failed} failed calls")
    for summary in on_asked:
        print(f"      asked: {summary[:90]}")
    print(f"  sandbox off                  : {off_count:2d} questions, {off_failed} failed calls")
    for summary in off_asked:
        print(f"      asked: {summary[:90]}")


if __name__ == "__main__":
    main()
