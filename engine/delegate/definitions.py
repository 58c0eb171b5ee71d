"""Agent definitions: ``.ironhive/agents/NAME.md`` in the project and the user config dir, and the built-ins.

A definition is a Markdown file with YAML frontmatter (read in the same dialect as SKILL.md: every
scalar a string, lists in block style) and a body that is the agent's system prompt::

    ---
    name: reviewer
    description: Reviews a diff for bugs and missing tests.
    tools:
      - read_file
      - grep_files
    model: openai/gpt-4o-mini
    max_tool_turns: 10
    reasoning: low
    ---
    You review changes...

A project file overrides a user file of the same name, which overrides a built-in. A file that cannot
be used is reported (``AgentCatalog.problems``) and its agent is not offered; the session goes on.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from msgspec import Meta, Struct, field

from engine.config.validation import Invalid, StrictRecord, convert
from engine.parsed_files import ParsedFiles
from engine.paths import project_dir, user_config_dir
from engine.skills.frontmatter import SkillFileError, parse_yaml_mapping, read_skill_text

if TYPE_CHECKING:
    from engine.skills.strict_cache import Verdict

AGENTS_DIR_NAME = "agents"
NAME_PATTERN = r"^[a-z0-9][a-z0-9_-]{0,57}$"
"""Lower-case letters, digits, ``-`` and ``_``: ``agent_{name}`` must be a valid tool name (64 characters at most)."""
READ_ONLY_TOOLS = ("read_file", "list_directory", "glob_files", "grep_files")

Reasoning = Literal["minimal", "low", "medium", "high"]


class AgentFileError(Exception):
    """An agent file that cannot be used; ``str(error)`` names the file and the problem."""


class _Frontmatter(StrictRecord, frozen=True):
    description: Annotated[str, Meta(min_length=1)]
    name: str | None = None
    tools: tuple[str, ...] | None = None
    model: Annotated[str, Meta(min_length=1)] | None = None
    max_tool_turns: Annotated[int, Meta(gt=0)] | None = None
    reasoning: Reasoning | None = None


class AgentDefinition(Struct, frozen=True, kw_only=True):
    """One agent the model can delegate to (as the tool ``agent_{name}``)."""

    name: str
    description: str
    prompt: str
    """The agent's system prompt."""
    tools: tuple[str, ...] | None = None
    """The names of the tools it gets; None: every tool its parent has."""
    model: str | None = None
    """Its model (at the session's endpoint); None: its parent's."""
    max_tool_turns: int | None = None
    """Model turns per run; None: ``delegation.max_tool_turns``."""
    reasoning: Reasoning | None = None
    """The reasoning effort asked of its model; None: the provider's default."""
    source: str = "built-in"
    """Where it was defined: ``built-in`` or the file's path."""


class AgentCatalog(Struct, frozen=True, kw_only=True):
    """The agents of a session, by name, and the files that could not be used."""

    agents: dict[str, AgentDefinition] = field(default_factory=lambda: dict(BUILTIN_AGENTS))
    problems: tuple[str, ...] = ()
    """One message per unusable file, naming it."""

    @property
    def notices(self) -> tuple[str, ...]:
        """What the person is told at the start of a session."""
        return tuple(f"{problem}; that agent is not offered" for problem in self.problems)


EXPLORE = AgentDefinition(
    name="explore",
    description=(
        "Explore the project read-only: find files, search the code and read it, then report what was found "
        "(paths, line numbers, short excerpts). Give it a precise question; use it for searches that would "
        "take many calls, to keep this conversation small."
    ),
    prompt=(
        "You explore a codebase to answer one question for another agent. You can only read: use glob_files "
        "and list_directory to find files, grep_files to search them and read_file to read them. Be thorough "
        "but quick. Answer with what you found: file paths with line numbers, short relevant excerpts, and a "
        "direct answer to the question. Say plainly what you could not find."
    ),
    tools=READ_ONLY_TOOLS,
)
GENERAL = AgentDefinition(
    name="general",
    description=(
        "A general-purpose agent with every tool: hand it a self-contained task (research, a focused change, "
        "a check) and it comes back with the result. Say exactly what to do and what to report."
    ),
    prompt=(
        "You are a coding agent doing one task for another agent, in the user's project. Understand before "
        "changing: read the relevant files first. Make focused changes, verify them when you can, and finish "
        "with a concise report: what you did, what you found, what you could not do."
    ),
)
BUILTIN_AGENTS: dict[str, AgentDefinition] = {EXPLORE.name: EXPLORE, GENERAL.name: GENERAL}


def load_agents(cwd: Path) -> AgentCatalog:
    """The built-ins, then the user's agent files, then the project's (a later namesake wins)."""
    agents = dict(BUILTIN_AGENTS)
    problems: list[str] = []
    for folder in (user_config_dir() / AGENTS_DIR_NAME, project_dir(cwd) / AGENTS_DIR_NAME):
        for path in agent_files(folder):
            try:
                definition = read_agent_file(path)
            except AgentFileError as error:
                problems.append(str(error))
                continue
            agents[definition.name] = definition
    return AgentCatalog(agents=agents, problems=tuple(problems))


def agent_files(folder: Path) -> list[Path]:
    """The ``*.md`` files of ``folder``, by name (none when it does not exist)."""
    if not folder.is_dir():
        return []
    return sorted((path for path in folder.iterdir() if path.suffix == ".md"), key=lambda path: path.name)


def read_agent_file(path: Path) -> AgentDefinition:
    """The definition in ``path`` (parsed once while the file is unchanged); raises ``AgentFileError``."""
    return _PARSED.get(path, path, partial(_read_agent_file, path))


_PARSED: ParsedFiles[AgentDefinition] = ParsedFiles()


def _read_agent_file(path: Path) -> AgentDefinition:
    try:
        text = read_skill_text(path)
        yaml_text, body = _split(text)
        data = _frontmatter_mapping(yaml_text)
    except (SkillFileError, AgentFileError) as error:
        raise AgentFileError(f"agent file {path}: {_one_line(str(error))}") from None
    return _definition(path, data, body)


_FLOW_VALUE = re.compile(r"^[^\n#]*:[ \t]+[\[{]", re.MULTILINE)
"""A key whose value is a flow collection (``tools: [a, b]``)."""


def _frontmatter_mapping(text: str) -> dict[str, Any]:
    """The frontmatter's mapping: in the skills' dialect, except that a flow list or mapping (``tools: [a, b]``,
    plain YAML, which strictyaml refuses and Claude Code's agent files use) is read by hive's own safe reader."""
    if _FLOW_VALUE.search(text) is None:
        return parse_yaml_mapping(text)
    from engine.skills.strict_cache import remembered_readings

    reading = remembered_readings().verdict(text, _flow_reading, reader="PyYAML")
    if reading.error:
        raise AgentFileError(reading.error)
    data: dict[str, Any] = reading.data
    return data


def _flow_reading(text: str) -> Verdict:
    """An agent file's frontmatter read by hive's safe YAML reader: its mapping, or what is wrong with it."""
    import yaml

    from engine.config.yaml_reader import load_yaml  # no aliases, bounded depth, no duplicate keys
    from engine.skills.strict_cache import Verdict

    try:
        data = load_yaml(text)
    except yaml.YAMLError as error:
        return Verdict(error=f"invalid YAML in the frontmatter: {_one_line(str(error))}")
    if not isinstance(data, dict):
        return Verdict(error="its frontmatter must be a YAML mapping")
    return Verdict(data=data)


def _one_line(message: str) -> str:
    message = " ".join(message.replace("SKILL.md", "the frontmatter").split())
    if "flow" in message:  # strictyaml's dialect refuses [a, b] and {a: b}; its own message is long
        line = re.search(r"line (\d+)", message)
        where = f" (line {line.group(1)})" if line else ""
        return f"invalid YAML in the frontmatter{where}: write lists in block style, one '- item' per line, not [a, b]"
    return message


def _split(text: str) -> tuple[str, str]:
    if not text.startswith("---"):
        raise AgentFileError("it must start with YAML frontmatter between --- lines")
    parts = text.split("---", 2)
    if len(parts) < 3:
        raise AgentFileError("its frontmatter is not closed with ---")
    return parts[1], parts[2].strip()


def _definition(path: Path, data: dict[str, object], body: str) -> AgentDefinition:
    try:
        front = convert(data, _Frontmatter)
    except Invalid as exc:
        raise AgentFileError(f"agent file {path}: {exc.key or 'frontmatter'}: {exc.problem}") from None
    name = front.name or path.stem
    if not re.fullmatch(NAME_PATTERN, name):
        raise AgentFileError(f"agent file {path}: the name {name!r} must be lower-case letters, digits, - or _")
    if name != path.stem:
        raise AgentFileError(f"agent file {path}: its name {name!r} must match the file name ({path.stem}.md)")
    if not body:
        raise AgentFileError(f"agent file {path}: it has no system prompt (the text after the frontmatter)")
    return AgentDefinition(
        name=name,
        description=front.description.strip(),
        prompt=body,
        tools=tuple(front.tools) if front.tools is not None else None,
        model=front.model,
        max_tool_turns=front.max_tool_turns,
        reasoning=front.reasoning,
        source=str(path),
    )
