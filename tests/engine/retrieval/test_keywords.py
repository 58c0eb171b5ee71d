"""Keyword scores against cases computed by hand from the definitions in ``engine.retrieval.keywords``."""

from __future__ import annotations

from engine.retrieval.keywords import KeywordRetriever, description_tokens, name_tokens, tokens
from engine.tools.base import ToolSpec


def spec(name: str, description: str) -> ToolSpec:
    return ToolSpec(name=name, description=description, parameters={"type": "object"}, kind="mcp")


PULLS = spec("mcp__gh__list_pull_requests", "List pull requests by state.")
POST = spec("mcp__slack__chat_post_message", "Post a message to a channel or thread.")


def score(query: str, tool: ToolSpec) -> float:
    return KeywordRetriever().scores(query, [tool])[tool.name]


def test_tokens_split_camel_case_snake_case_and_punctuation_lowercased() -> None:
    assert tokens("getPullRequest get_pull_request, HTTPServer-v2") == [
        "get", "pull", "request", "get", "pull", "request", "http", "server", "v", "2"
    ]  # fmt: skip


def test_a_name_loses_only_its_mcp_prefix_and_a_description_its_stop_words() -> None:
    assert name_tokens(PULLS.name) == {"gh", "list", "pull", "requests"}
    assert description_tokens(POST.description) == {"post", "message", "channel", "thread"}


def test_name_and_description_coverage_combine_three_to_one() -> None:
    # name: list, pull, requests (contains "request") of {gh, list, pull, requests} = 3/4;
    # description: {list, pull} of {list, pull, requests, state} = 2/4 ("request" is not "requests").
    assert score("list my open pull request", PULLS) == 0.75 * 0.75 + 0.25 * 0.5 == 0.6875


def test_a_second_tool_scored_by_hand() -> None:
    # name: slack, post of {slack, chat, post, message} = 2/4; description: post of 4 = 1/4.
    assert score("post the build status to slack", POST) == 0.75 * 0.5 + 0.25 * 0.25 == 0.4375


def test_name_tokens_match_by_substring_only_from_three_characters() -> None:
    assert score("messages", POST) == 0.75 * 0.25 == 0.1875  # "message" is in "messages"; descriptions match exactly
    assert score("gh", PULLS) == 0.75 * 0.25 == 0.1875  # equal tokens match however short
    assert score("ghost", PULLS) == 0.0  # "gh" is in "ghost", but is too short to match by substring


def test_every_token_covered_scores_one() -> None:
    assert score("gh list pull requests by state", PULLS) == 1.0


def test_the_score_does_not_depend_on_the_query_length() -> None:
    query = "list my open pull request"
    longer = query + " and then some words that have nothing to do with it whatsoever, really nothing"
    repeated = " ".join([query] * 5)
    assert score(query, PULLS) == score(longer, PULLS) == score(repeated, PULLS) == 0.6875


def test_an_empty_query_or_description_scores_zero_for_that_part() -> None:
    bare = spec("mcp__fs__read_file", "")
    assert score("", PULLS) == 0.0
    assert score("read the file on fs", bare) == 0.75 * 1.0
