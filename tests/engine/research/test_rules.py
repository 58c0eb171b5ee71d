"""The stop rule, the judge's and planner's JSON, and the lexical citation check."""

from __future__ import annotations

from datetime import UTC, datetime

from engine.research.controller import LoopState, is_repeat, max_iterations, stop_reason
from engine.research.options import ResearchOptions
from engine.research.replies import Judgement, parse_judgement, parse_queries
from engine.research.result import CitedSource, Source
from engine.research.verify import check_citations, support


def state(score: float, gaps: tuple[str, ...] = (), *, iteration: int = 1, sources: int = 5, new: int = 2) -> LoopState:
    return LoopState(
        iteration=iteration,
        judgement=Judgement(score=score, gaps=gaps),
        sources=sources,
        new_sources=new,
        fresh_queries=2,
    )


def test_a_score_at_the_threshold_stops() -> None:
    assert stop_reason(state(0.7), ResearchOptions()) == "sufficient"


def test_too_few_sources_with_a_gap_left_go_on_despite_the_score() -> None:
    options = ResearchOptions(min_sources_before_report=5)

    assert stop_reason(state(0.9, ("dates",), sources=3), options) is None
    assert stop_reason(state(0.9, (), sources=3), options) == "sufficient"


def test_the_depth_preset_caps_the_iterations() -> None:
    assert max_iterations(ResearchOptions(depth="quick", max_iterations=4)) == 1
    assert max_iterations(ResearchOptions(depth="deep", max_iterations=2)) == 2
    assert stop_reason(state(0.1, iteration=3), ResearchOptions(depth="standard")) == "max_iterations"


def test_an_iteration_without_new_sources_is_a_stall() -> None:
    assert stop_reason(state(0.1, new=0), ResearchOptions()) == "stalled"


def test_queries_with_the_same_words_count_as_repeats() -> None:
    assert is_repeat("Tessel glacier retreat rate", ["retreat rate of Tessel glacier"])
    assert not is_repeat("Tessel glacier ice cores", ["Tessel glacier retreat rate"])


def test_the_judges_json_is_read_through_fences_and_chatter() -> None:
    reply = 'Here you go:\n```json\n{"score": 1.4, "gaps": ["dates", 3], "next_queries": ["a"]}\n```'

    assert parse_judgement(reply) == Judgement(score=1.0, gaps=("dates",), next_queries=("a",))


def test_an_unreadable_verdict_is_insufficient_and_says_so() -> None:
    verdict = parse_judgement("I think it is quite good, maybe 0.8?")

    assert (verdict.score, verdict.readable) == (0.0, False)
    assert verdict.gaps


def test_planned_queries_are_deduplicated_and_limited() -> None:
    assert parse_queries('["a b", "A  B", "c", "d"]', 2) == ("a b", "c")
    assert parse_queries('{"queries": ["x"]}', 3) == ("x",)
    assert parse_queries("no json here", 3) == ()


def test_support_is_the_share_of_the_sentences_words_its_source_holds() -> None:
    source = "The Tessel Glacier has retreated 1.8 kilometres since survey markers were placed in 1962."

    assert support("The Tessel Glacier retreated 1.8 kilometres since 1962 [1].", source) == 1.0
    assert support("Penguins migrate across Antarctic ice shelves [1].", source) == 0.0


def test_weak_citations_are_marked_in_the_text() -> None:
    source = Source(
        number=1, url="/a.md", title="A", provider="docs", accessed=datetime.now(UTC), text="Glaciers melt in summer."
    )
    body, weak = check_citations(
        "Glaciers melt in summer [1]. Penguins fly south [1].", (CitedSource(number=1, source=source),)
    )

    assert [w.sentence for w in weak] == ["Penguins fly south [1]."]
    assert "Penguins fly south [1] (⚠ weak support)." in body
