"""The memory tool provider: the configured store behind ``remember`` and ``recall``, and the prompt note."""

from __future__ import annotations

from pathlib import Path

from engine.capabilities import BuildContext
from engine.instructions import InstructionContext
from engine.memory.options import MemoryOptions
from engine.memory.service import MemoryService
from engine.memory.store import SqliteMemory
from engine.memory.tools import MEMORY_INSTRUCTIONS, RecallTool, RememberTool
from engine.paths import repository_root, user_data_dir
from engine.redaction.scrubber import Scrubber
from engine.tools.base import Toolset
from engine.tools.registry import ToolRegistry

MEMORY_FILE = "memory.sqlite3"


def memory_for(
    options: MemoryOptions, cwd: Path, api_key: str | None = None, api_base: str | None = None
) -> MemoryService:
    """The store the options name, scoped to the repository root of ``cwd`` (or ``cwd`` outside one).

    What it keeps has the known secrets replaced: hive's secret variables and ``api_key`` (the model's).
    An embedding model is reached at ``api_base`` with ``api_key``, as the chat model is.
    """
    project = repository_root(cwd) or cwd.resolve()
    path = options.path.expanduser() if options.path else user_data_dir() / MEMORY_FILE
    scrub = Scrubber.from_environment(known=[("model-api-key", api_key)])
    if options.embedding_model:
        from engine.model.embeddings import litellm_embedder

        embedder = litellm_embedder(
            options.embedding_model, setting="memory.embedding_model", api_base=api_base, api_key=api_key
        )
        return SqliteMemory(
            path, project=project, embedder=embedder, embedding_model=options.embedding_model, scrub=scrub
        )
    return SqliteMemory(path, project=project, scrub=scrub)


class MemoryProvider:
    """Offers ``remember`` and ``recall`` over ``memory`` (by default the store the session's settings name)."""

    def __init__(self, memory: MemoryService | None = None) -> None:
        self.memory = memory

    def toolset(self, context: BuildContext) -> Toolset | None:
        config = context.config
        memory = self.memory or memory_for(config.memory, config.cwd, config.model.api_key, config.model.api_base)
        return ToolRegistry([RememberTool(memory), RecallTool(memory)])

    def contribute(self, context: InstructionContext) -> str | None:
        return MEMORY_INSTRUCTIONS
