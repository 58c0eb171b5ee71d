"""`hive research` end to end: the real program in a subprocess, the scripted model, the fixture documents."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer
from tests.support.research_model import FIXTURE_DOCS, ResearchScript, research_args
from tests.support.small_disk import fill

QUESTION = "How fast is the Tessel Glacier retreating, and why?"
REPORT = (
    "The Tessel Glacier has retreated 1.8 kilometres since 1962 [2], faster after 1990 [2]. "
    "Summer temperature at Carrow Pass rose by 1.6 degrees Celsius [5]. A made-up claim [12]. "
    "More at https://invented.example/glacier and [a link](https://invented.example/other)."
)
SUFFICIENT = '{"score": 0.9, "gaps": [], "next_queries": []}'


def research(server: LLMServer, tmp_path: Path, *extra: str, docs: Path = FIXTURE_DOCS, question: str = QUESTION):
    return run_hive("research", question, *research_args(server, tmp_path, docs), *extra)


def registry_urls(report: str) -> dict[int, str]:
    section = report.split("## Sources", 1)[1]
    return {int(n): url for n, url in re.findall(r"^\[(\d+)\] .+? — (\S+) \(accessed", section, re.MULTILINE)}


def test_a_docs_run_prints_a_report_whose_every_citation_resolves(llm_server: LLMServer, tmp_path: Path) -> None:
    ResearchScript(judges=[SUFFICIENT], report=REPORT).install(llm_server)

    done = research(llm_server, tmp_path, "--min-sources", "2")

    assert done.returncode == 0, done.stderr
    report = done.stdout
    body, _ = report.split("## Sources", 1)
    sources = registry_urls(report)
    cited = {int(n) for n in re.findall(r"\[(\d+)\]", body)}
    assert cited == set(sources) == {1, 2}  # renumbered in order of first use
    assert all(Path(url).is_file() and Path(url).is_relative_to(FIXTURE_DOCS) for url in sources.values())
    assert "invented.example" not in report
    assert "1 citation(s) of sources that do not exist: 12" in report
    assert "research: read [1]" in done.stderr and "unknown citation(s) removed" in done.stderr


def test_json_output_has_question_report_sources_iterations_and_usage(llm_server: LLMServer, tmp_path: Path) -> None:
    script = ResearchScript(judges=[SUFFICIENT], report=REPORT).install(llm_server)

    done = research(llm_server, tmp_path, "--min-sources", "2", "--output-format", "json")

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert {"question", "report", "sources", "iterations", "usage"} <= set(result)
    assert result["question"] == QUESTION and result["stop_reason"] == "sufficient"
    assert [s["number"] for s in result["sources"]] == [1, 2]
    assert {"title", "url", "accessed", "provider"} <= set(result["sources"][0])
    assert result["iterations"][0]["score"] == 0.9
    assert result["usage"]["total"]["calls"] == script.calls == len(llm_server.chat_requests)
    assert set(result["usage"]["by_stage"]) == {"plan", "notes", "judge", "write"}
    assert result["removed_citations"] == [12]


def test_output_writes_the_markdown_report_to_a_file(llm_server: LLMServer, tmp_path: Path) -> None:
    ResearchScript(judges=[SUFFICIENT], report=REPORT).install(llm_server)
    target = tmp_path / "report.md"

    done = research(llm_server, tmp_path, "--min-sources", "2", "--output", str(target))

    assert done.returncode == 0, done.stderr
    written = target.read_text()
    assert written.startswith("The Tessel Glacier") and "## Sources" in written
    assert done.stdout == "" and f"report written to {target}" in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["report.md"]  # no temporary file left behind


def test_verify_flags_a_citation_its_source_does_not_support(llm_server: LLMServer, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(FIXTURE_DOCS / "glacier_retreat.md", docs)
    report = "The Tessel Glacier has retreated 1.8 kilometres since 1962 [1]. Penguins nest on the ice front [1]."
    ResearchScript(judges=[SUFFICIENT], report=report).install(llm_server)

    done = research(llm_server, tmp_path, "--min-sources", "1", "--verify", "--output-format", "json", docs=docs)

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert [w["sentence"] for w in result["weak_citations"]] == ["Penguins nest on the ice front [1]."]
    assert "Penguins nest on the ice front [1] (⚠ weak support)." in result["report"]
    assert "## Citation check" in result["report"]


def test_an_empty_question_is_a_usage_error(llm_server: LLMServer, tmp_path: Path) -> None:
    done = research(llm_server, tmp_path, question="   ")

    assert done.returncode == 2
    assert "question is empty" in done.stderr and "Traceback" not in done.stderr
    assert llm_server.chat_requests == []


def test_a_missing_docs_folder_is_a_usage_error(llm_server: LLMServer, tmp_path: Path) -> None:
    done = research(llm_server, tmp_path, docs=tmp_path / "nowhere")

    assert done.returncode == 2
    assert "no such folder" in done.stderr and done.stderr.count("\n") == 1


def test_a_provider_this_build_cannot_use_is_a_usage_error(llm_server: LLMServer, tmp_path: Path) -> None:
    args = [
        a for a in research_args(llm_server, tmp_path) if a not in ("--provider", "docs", "--docs", str(FIXTURE_DOCS))
    ]

    done = run_hive("research", QUESTION, *args, "--provider", "tavily")

    assert done.returncode == 2 and "tavily" in done.stderr and "Traceback" not in done.stderr


def test_finding_no_source_at_all_reports_so_and_exits_1(llm_server: LLMServer, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    ResearchScript().install(llm_server)

    done = research(llm_server, tmp_path, docs=empty)

    assert done.returncode == 1, done.stderr
    assert "No sources were found" in done.stdout
    assert "## Sources" not in done.stdout


def test_a_spent_budget_gives_a_partial_report_and_exit_3(llm_server: LLMServer, tmp_path: Path) -> None:
    (tmp_path / ".ironhive").mkdir()
    (tmp_path / ".ironhive" / "settings.yaml").write_text("research:\n  max_total_tokens: 300\n")
    ResearchScript().install(llm_server)

    done = research(llm_server, tmp_path, "--output-format", "json")

    assert done.returncode == 3, done.stderr
    result = json.loads(done.stdout)
    assert result["partial"] is True and "Partial report" in result["report"]
    assert all(f"[{s['number']}]" in result["report"] for s in result["sources"])


def test_the_docs_provider_without_a_folder_is_a_usage_error(llm_server: LLMServer, tmp_path: Path) -> None:
    args = [a for a in research_args(llm_server, tmp_path) if a not in ("--docs", str(FIXTURE_DOCS))]

    done = run_hive("research", QUESTION, *args)

    assert done.returncode == 2 and "--docs DIR" in done.stderr and "Traceback" not in done.stderr


def test_a_report_that_finds_no_room_in_its_file_is_printed_instead(
    llm_server: LLMServer, tmp_path: Path, small_disk: Path
) -> None:
    ResearchScript(judges=[SUFFICIENT], report=REPORT).install(llm_server)
    target = small_disk / "report.md"
    fill(small_disk)

    done = research(llm_server, tmp_path, "--min-sources", "2", "--output", str(target))

    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith("The Tessel Glacier") and "## Sources" in done.stdout  # not lost
    assert (
        f"hive: no space left on device writing report.md in {small_disk}; "
        "the report is printed on standard output instead"
    ) in done.stderr
    assert "report written to" not in done.stderr
    assert sorted(p.name for p in small_disk.iterdir()) == ["filler"]  # no partial report left behind
