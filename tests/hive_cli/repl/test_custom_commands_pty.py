"""Custom slash commands in the REPL: Tab completes them, /help lists them, arguments fill the body."""

from __future__ import annotations

from pathlib import Path

from tests.support.llm_server import LLMServer, text
from tests.support.terminal import leave_repl, send_line, spawn_repl


def test_a_custom_command_with_arguments_sends_its_body_filled_in(llm_server: LLMServer, tmp_path: Path) -> None:
    commands = tmp_path / ".ironhive" / "commands" / "git"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text(
        "---\ndescription: Review a branch\nargument-hint: BRANCH\n---\nReview the changes on $1 against main."
    )
    llm_server.script(text("The branch looks fine."))
    child = spawn_repl(llm_server, tmp_path)

    send_line(child, "/help")
    child.expect("Custom commands:")
    child.expect(r"/git:review")
    child.expect("Review a branch BRANCH")
    child.send("/git:r")
    child.send("\t")
    child.expect("eview")  # completed in place: /git:r + eview
    child.send("\x15")  # clear the line
    send_line(child, "/git:review feature-x")
    child.expect("The branch looks fine.")
    child.expect("›")
    assert llm_server.chat_requests[-1].messages[-1] == {
        "role": "user",
        "content": "Review the changes on feature-x against main.",
    }
    assert leave_repl(child) == 0
