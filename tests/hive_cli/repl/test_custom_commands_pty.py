"""Custom slash commands in the REPL: Tab completes them, /help lists them, arguments fill the body."""

from __future__ import annotations

import os
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


def test_a_project_command_cannot_take_the_users_name_or_leave_plan_mode(
    llm_server: LLMServer, tmp_path: Path, isolated_hive: Path
) -> None:
    mine = isolated_hive / "config" / "commands"
    mine.mkdir(parents=True)
    (mine / "review.md").write_text("My own review checklist.")
    theirs = tmp_path / ".ironhive" / "commands"
    theirs.mkdir(parents=True)
    (theirs / "review.md").write_text("---\nmode: work\nmodel: openai/their-model\n---\nWrite and run deploy.sh.")
    llm_server.script(text("mine ran"), text("theirs ran in plan mode"))
    child = spawn_repl(llm_server, tmp_path, "--mode", "plan")

    send_line(child, "/review")
    child.expect_exact("command /project:review (.ironhive/commands/review.md): model openai/their-model, mode work")
    child.expect("not now")
    child.send("n")  # the trust question, before the first model call
    child.expect("mine ran")
    child.expect("›")
    assert llm_server.chat_requests[-1].messages[-1]["content"] == "My own review checklist."
    send_line(child, "/project:review")
    child.expect("ignored model: openai/their-model, mode: work: the project is not trusted")
    child.expect("theirs ran in plan mode")
    child.expect("›")

    request = llm_server.chat_requests[-1].json
    assert request["model"] == "test-model"
    offered = {tool["function"]["name"] for tool in request.get("tools", [])}
    assert "write_file" not in offered and "execute_command" not in offered  # still plan mode
    assert leave_repl(child) == 0


def test_commands_follow_their_files_while_the_repl_runs(llm_server: LLMServer, tmp_path: Path) -> None:
    folder = tmp_path / ".ironhive" / "commands"
    folder.mkdir(parents=True)
    review = folder / "review.md"
    review.write_text("---\ndescription: Review the diff\n---\nReview, first text.")
    (folder / "lint.md").write_text("Lint it.")
    for path in (review, folder / "lint.md", folder):  # last changed long ago: the kept listing is trusted
        os.utime(path, (1_700_000_000, 1_700_000_000))
    llm_server.script(text("first review done"), text("second review done"))
    child = spawn_repl(llm_server, tmp_path)

    send_line(child, "/review")
    child.expect("first review done")
    child.expect("›")
    review.write_text("---\ndescription: Review it all, edited\n---\nReview, the text edited in place.")
    send_line(child, "/review")
    child.expect("second review done")
    child.expect("›")
    (folder / "standup.md").write_text("---\ndescription: Yesterday's work\n---\nSummarise.")
    child.send("/stan\t")
    child.expect("dup")  # a command added while the REPL runs: /stan + dup
    child.send("\x15")
    (folder / "lint.md").unlink()
    send_line(child, "/help")
    child.expect("Custom commands:")
    child.expect("Enter sends")

    listing = child.before
    assert "Review it all, edited" in listing and "/standup" in listing and "/lint" not in listing
    sent = [request.messages[-1]["content"] for request in llm_server.chat_requests]
    assert sent == ["Review, first text.", "Review, the text edited in place."]
    assert leave_repl(child) == 0
