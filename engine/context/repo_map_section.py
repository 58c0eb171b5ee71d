"""The repository map in the first request: a section of the system prompt, for a session in a git repository.

The section is the map of the working directory within ``repo_map.budget_tokens`` (counted with the
model's tokenizer), built when the agent is built, so every request of the session carries the same
prompt (and a provider's prompt cache keeps it). Only files the read rules let ``read_file`` read
without asking are mapped: a file they deny or ask about is not parsed, and not named. Whether a session
gets it: ``repo_map.in_first_request``, by default (``auto``) a model whose window is known and at least
:data:`engine.repomap.options.AUTO_MIN_WINDOW` tokens. The section is kept between sessions
(:mod:`engine.repomap.section_cache`), so only a session after a change builds it; the REPL builds it while
the person types the first message (:func:`engine.agent.prepare_repo_map`).
"""

from __future__ import annotations

from itertools import islice
from pathlib import Path

from engine.capabilities import Capability
from engine.config.loader import SessionConfig
from engine.context.tokens import counter_for
from engine.context.window import window_for
from engine.events import ToolCall
from engine.instructions import InstructionContext
from engine.paths import repository_root
from engine.policy.gate import Policy
from engine.repomap.build import map_files, render_map
from engine.repomap.files import candidate_files
from engine.repomap.languages import LanguageSpec
from engine.repomap.options import AUTO_MIN_WINDOW
from engine.repomap.section_cache import load_section, save_section, section_key, section_path
from engine.tools.base import ToolContext, ToolSpec

SECTION_HEADER = "# Repository map"
_READ_SPEC = ToolSpec(name="read_file", description="", parameters={}, read_only=True)
CANDIDATES_PER_FILE_READ = 2
"""The map looks at most this many times ``max_files`` files (before the read rules leave some out)."""


def wants_repo_map(config: SessionConfig) -> bool:
    """Whether the session's first request carries the map: the setting; with ``auto``, a large enough known window."""
    chosen = config.repo_map.in_first_request
    if chosen != "auto":
        return chosen
    window = window_for(config.model.model, config.context.context_window)
    return window.known and window.tokens >= AUTO_MIN_WINDOW


class RepoMapSection(Capability):
    """Adds the map of the working directory to the system prompt (nothing outside a git repository)."""

    def __init__(self, config: SessionConfig, policy: Policy) -> None:
        self.config = config
        self.policy = policy

    def contribute(self, context: InstructionContext) -> str | None:
        root = context.cwd.resolve()
        if repository_root(root) is None:
            return None
        options = self.config.repo_map
        candidates = list(islice(candidate_files(root), CANDIDATES_PER_FILE_READ * options.max_files))
        key = section_key(root, candidates, self._settings())
        kept_at = section_path(root)
        text = load_section(kept_at, root, key)
        if text is None:
            text = self._build(root, candidates)
            save_section(kept_at, root, key, text)
        return text or None

    def _settings(self) -> object:
        """What the map depends on besides the files: the read rules' inputs, the options and the tokenizer."""
        config = self.config
        return [config.permissions, config.sandbox, config.repo_map, config.model.model]

    def _build(self, root: Path, candidates: list[tuple[str, LanguageSpec]]) -> str:
        options = self.config.repo_map
        probe = ToolContext(cwd=root, data_dir=root)

        def readable(relative: str) -> bool:
            call = ToolCall(id="repo-map", name="read_file", arguments={"path": relative})
            return self.policy.judge(_READ_SPEC, call, probe).verdict == "allow"

        mapped = map_files(root, readable, max_files=options.max_files, candidates=candidates)
        repo_map = render_map(mapped, options.budget_tokens, counter_for(self.config.model.model).text)
        if not repo_map.shown:
            return ""
        return _section(repo_map.text, repo_map.shown, repo_map.total, root)


def _section(text: str, shown: int, total: int, root: Path) -> str:
    intro = (
        f"The {shown} definitions of {total} in {root} that other files use most, under their files (paths relative "
        "to the working directory), as `line: signature`. The repo_map tool maps a folder in more detail."
    )
    return f"{SECTION_HEADER}\n\n{intro}\n\n{text}"
