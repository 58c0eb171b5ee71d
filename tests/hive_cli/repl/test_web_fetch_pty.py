"""The first fetch of a domain asks at the terminal: always (a) covers that domain only, for the session."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.llm_server import LLMServer, call, text, tool_calls
from tests.support.search_server import SearchServer
from tests.support.terminal import QUESTION, leave_repl, send_line, spawn_repl


def test_always_for_a_domain_covers_its_next_fetch_and_another_domain_is_asked_again(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    config = Path(os.environ["HIVE_HOME"]) / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.yaml").write_text("research:\n  allow_private_urls: true\n")
    with SearchServer() as pages:
        first = pages.page_url("solar-sails.html")
        same_domain = pages.page_url("sourdough.html")
        other_domain = f"http://localhost:{pages.port}/pages/sourdough.html"
        llm_server.script(
            tool_calls(call("web_fetch", {"url": first}, id="f1")),
            tool_calls(call("web_fetch", {"url": same_domain}, id="f2")),
            tool_calls(call("web_fetch", {"url": other_domain}, id="f3")),
            text("Read two, one refused."),
        )
        child = spawn_repl(llm_server, tmp_path)
        send_line(child, "read the pages")
        child.expect(QUESTION)
        child.expect("web_fetch: 127.0.0.1")  # the "always" offer names the domain
        child.send("a")
        child.expect(QUESTION)  # the next question is the other domain's: the same domain was not asked again
        child.expect("web_fetch: localhost")
        child.send("n")
        child.expect("reason")
        send_line(child, "")
        child.expect("Read two, one refused.")
        assert leave_repl(child) == 0

    fetched = [r.path for r in pages.requests]
    assert fetched == ["/pages/solar-sails.html", "/pages/sourdough.html"]
    tool_results = [m for m in llm_server.chat_requests[3].messages if m["role"] == "tool"]
    assert "Lumen-2" in tool_results[0]["content"] and "sourdough" in tool_results[1]["content"].lower()
    assert "was not run" in tool_results[2]["content"]
