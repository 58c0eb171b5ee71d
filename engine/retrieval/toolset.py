"""The retrieving toolset: offers each request the MCP tools and agents that fit the user's latest request.

Only MCP tools and the agents of agent files are candidates (the built-in tools and agents, skills and
memory are always offered), and only when there are more than ``max_tools`` of them. Whatever is
offered, a request never carries more tools than the provider accepts (:mod:`engine.retrieval.tool_cap`). The query is the latest user message of
the conversation; tools the conversation already called stay offered. A call to a tool that was
not offered this request still runs: the model may know it from earlier, and filtering is about
what the request carries, not what is allowed (the policy decides that).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from engine.capabilities import BuildContext, Capability
from engine.delegate.definitions import BUILTIN_AGENTS
from engine.delegate.provider import TOOL_PREFIX
from engine.model.types import Message
from engine.retrieval.options import ToolRetrievalOptions
from engine.retrieval.select import SelectionRule, select_tools
from engine.retrieval.tool_cap import PROVIDER_TOOL_LIMIT, ToolCap
from engine.tools.base import Toolset, ToolSpec
from engine.tools.registry import WrapperToolset

RETRIEVED_KINDS = frozenset({"mcp", "agent"})
"""The tools retrieval chooses among: MCP tools and agents (the built-in tools and skills are always offered)."""


class Retriever(Protocol):
    """Scores tools against a query (higher is more relevant, 0 to 1)."""

    def scores(self, query: str, specs: Sequence[ToolSpec]) -> dict[str, float]: ...


class RetrievingToolset(WrapperToolset):
    """``inner`` with its MCP tools and agents narrowed to those ``retriever`` rates relevant to the latest request."""

    def __init__(
        self,
        inner: Toolset,
        options: ToolRetrievalOptions,
        history: Callable[[], Sequence[Message]],
        retriever: Retriever,
        always: Sequence[str] = (),
    ) -> None:
        super().__init__(inner)
        self.options = options
        self.always = tuple(always)
        """Candidates offered on every request (hive's built-in agents), before the settings' ``always_include``."""
        self.rule = SelectionRule(
            max_tools=options.max_tools,
            min_relevance_score=options.min_relevance_score,
            min_scored_slots=options.min_scored_slots,
        )
        self._history = history
        self._retriever = retriever

    def specs(self) -> Sequence[ToolSpec]:
        specs = self.inner.specs()
        candidates = [spec for spec in specs if spec.kind in RETRIEVED_KINDS]
        if len(candidates) <= self.options.max_tools:
            return specs
        messages = self._history()
        scores = self._retriever.scores(latest_request(messages), candidates)
        pinned = [*self.always, *self.options.always_include, *used_tools(messages)]
        chosen = set(select_tools([spec.name for spec in candidates], scores, pinned, self.rule))
        return [spec for spec in specs if spec.kind not in RETRIEVED_KINDS or spec.name in chosen]


def latest_request(messages: Sequence[Message]) -> str:
    """The text of the latest user message ('' when there is none)."""
    for message in reversed(messages):
        if message.get("role") == "user":
            return message_text(message)
    return ""


def message_text(message: Message) -> str:
    """A message's text, whether its content is a string or a list of parts."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return ""


def used_tools(messages: Sequence[Message]) -> list[str]:
    """The names of the tools the conversation's assistant messages called, first call first."""
    names: dict[str, None] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict):
                name = call.get("function", {}).get("name")
                if isinstance(name, str):
                    names.setdefault(name)
    return list(names)


def retriever_for(options: ToolRetrievalOptions, api_base: str | None = None, api_key: str | None = None) -> Retriever:
    """The embedding retriever when an embedding model is configured (reached at ``api_base`` with ``api_key``,
    as the chat model is), else the keyword retriever."""
    if options.embedding_model:
        from engine.model.embeddings import litellm_embedder
        from engine.retrieval.embedding import EmbeddingRetriever

        setting = "tool_retrieval.embedding_model"
        embedder = litellm_embedder(options.embedding_model, setting=setting, api_base=api_base, api_key=api_key)
        return EmbeddingRetriever(options.embedding_model, embedder)
    from engine.retrieval.keywords import KeywordRetriever

    return KeywordRetriever()


class ToolRetrieval(Capability):
    """Narrows the MCP tools offered to those relevant to the latest request (``tool_retrieval`` settings)."""

    def offered_tools(self, tools: Toolset, context: BuildContext) -> Toolset:
        options = context.config.tool_retrieval
        if not options.enabled:
            return ToolCap(tools, PROVIDER_TOOL_LIMIT)
        conversation = context.conversation
        retriever = retriever_for(options, context.config.model.api_base, context.config.model.api_key)
        always = [TOOL_PREFIX + name for name in BUILTIN_AGENTS]
        narrowed = RetrievingToolset(tools, options, lambda: conversation.messages, retriever, always)
        return ToolCap(narrowed, PROVIDER_TOOL_LIMIT)

    def for_child(self) -> Capability | None:
        return self  # a sub-agent's MCP tools are narrowed the same way
