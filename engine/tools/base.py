"""The tool protocol: specs shown to the model, results handed back, and the context a tool runs in."""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

import msgspec
from msgspec import Struct, field

from engine.config.validation import Invalid, convert
from engine.events import ROOT_AGENT, Event, Success, ToolCall
from engine.reports import ToolKind
from engine.tools.args import without_nulls
from engine.tools.editor_files import EditorFiles
from engine.tools.waits import DecisionWaits


class ToolSpec(Struct, frozen=True, kw_only=True):
    """What the model sees of a tool, plus how the engine must treat it."""

    name: str
    description: str
    parameters: dict[str, Any]
    """A JSON schema object describing the arguments."""
    read_only: bool = False
    """True when the tool never changes anything; such calls may run concurrently."""
    declared_only: bool = False
    """True when the host, not the engine, runs the tool: the loop stops with the call pending."""
    kind: ToolKind = "tool"
    """"tool", "mcp" (``mcp__{server}__{tool}``) or "agent" (a delegated agent run)."""
    source: str | None = None
    """The MCP server or agent behind the tool, for reports and labels."""
    added_later: bool = False
    """An MCP tool its server added after the session first listed its tools: each call is asked."""
    untrusted_claims: bool = False
    """An MCP tool of an untrusted project's server: its read-only claim never lets a call run unasked."""

    def to_openai(self) -> dict[str, Any]:
        """The OpenAI ``tools`` entry for this spec."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }


class ShownFiles(Struct, frozen=True):
    """The files a result shows, entry by entry, so a policy wrapper can leave some out before the model sees them."""

    paths: tuple[str, ...]
    """The file behind each entry of the result, as ``read_file`` would be given it (one path per entry)."""
    render: Callable[[frozenset[str]], str]
    """The output again, without the entries of the files given."""


class ToolResult(Struct, frozen=True):
    """What a tool returns: text for the model and whether the call worked."""

    output: str
    success: Success = True
    shown_files: ShownFiles | None = None
    """Set by tools whose output shows files' contents or names (searches, load_skill), for the read rules."""
    images: tuple[dict[str, Any], ...] = ()
    """Images for the model (OpenAI ``image_url`` parts): the loop sends them after the round's results, to a
    model that takes images (``engine.model.vision``), and tells any other model they were left out."""

    @classmethod
    def error(cls, message: str) -> ToolResult:
        """A failed call whose message goes back to the model."""
        return cls(message, False)


WriteInterceptor = Callable[[Path, str], None]
"""Called with the resolved path and the new content before a file tool writes; raising refuses the write."""


class FileToolOptions(Struct, frozen=True, kw_only=True):
    """Boundaries for the file tools.

    The working directory alone is not a boundary; ``allowed_roots`` is (opt-in). Paths are
    resolved through symbolic links before they are compared with the roots.
    """

    allowed_roots: tuple[Path, ...] | None = None
    write_interceptor: WriteInterceptor | None = None
    editor: EditorFiles | None = None
    """The editor hosting hive, when it offers its files (unsaved changes included); else the disk only."""
    saved_output_max_bytes: int = 10_000_000
    """One long output saved for the model keeps at most this many bytes, head and tail (``stores.output_file_max_bytes``)."""


class ProgressSink(Protocol):
    """Receives progress reported from inside a running tool."""

    def __call__(self, status: str, progress: float | None = None, total: float | None = None) -> None: ...


def _ambient_progress(status: str, progress: float | None = None, total: float | None = None) -> None:
    from engine.tracking.progress import report

    report(status, progress, total)


def _ignore_event(event: Event) -> None:
    return None


class ToolContext(Struct, kw_only=True):
    """Everything a tool may need from its surroundings."""

    cwd: Path
    """The working directory relative paths are resolved against."""
    data_dir: Path
    """A directory where tools may keep files for the model (e.g. full command output): in a session, the
    project's scratch folder ``.hive/``, inside the project so the model may read them back."""
    file_options: FileToolOptions = field(default_factory=FileToolOptions)
    progress: ProgressSink = _ambient_progress
    """Reports to the tracked tool call's scope (the same as ``engine.tracking.progress.report``)."""
    call_id: str = ""
    emit: Callable[[Event], None] = _ignore_event
    """Send an event to the host in-band, while the tool is still running (thread-safe)."""
    agent_id: str = ROOT_AGENT
    """The agent making the call (``root`` or a sub-agent's name), for the events the call produces."""
    outside_sandbox: bool = False
    """Run shell commands without the sandbox: set only by the approval gate, for one call a person let out."""
    waits: DecisionWaits = field(default_factory=DecisionWaits)
    """The call's time waiting for a person's decision (the approval gate counts it), not part of its run time."""
    offered: frozenset[str] | None = None
    """The tools the model was offered in the round that made this call (after the mode filter and the tool
    retriever), for hints that name another tool (:mod:`engine.tools.hints`); None when not known."""


@runtime_checkable
class Tool(Protocol):
    """A tool the engine can run."""

    @property
    def spec(self) -> ToolSpec: ...

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult: ...


class Toolset(Protocol):
    """A set of tools addressed by name; wrappers implement it too."""

    def specs(self) -> Sequence[ToolSpec]:
        """The specs offered to the model, in a stable order."""
        ...

    async def call(self, call: ToolCall, ctx: ToolContext) -> ToolResult:
        """Run one call; failures come back as results, never as exceptions."""
        ...


@runtime_checkable
class ToolsetLifecycle(Protocol):
    """A toolset that owns processes or connections (an MCP server): started before use, stopped at the end.

    ``start`` must return promptly (slow work such as connecting goes on in the background); ``stop``
    releases everything, even when ``start`` never finished.
    """

    async def start(self) -> None: ...

    async def stop(self) -> None: ...


async def start_toolset(toolset: Toolset) -> None:
    """Start ``toolset`` if it has a lifecycle."""
    if isinstance(toolset, ToolsetLifecycle):
        await toolset.start()


async def stop_toolset(toolset: Toolset) -> None:
    """Stop ``toolset`` if it has a lifecycle."""
    if isinstance(toolset, ToolsetLifecycle):
        await toolset.stop()


ArgsT = TypeVar("ArgsT", bound=Struct)


class ArgsTool(Generic[ArgsT]):
    """A tool whose arguments are a msgspec record: the schema and the validation come from it.

    Subclasses set ``name``, ``description``, ``args_model`` and ``read_only`` and implement
    ``execute``. Invalid arguments become one clear error result for the model.
    """

    name: ClassVar[str]
    description: ClassVar[str]
    args_model: type[ArgsT]
    read_only: ClassVar[bool] = False

    @functools.cached_property
    def spec(self) -> ToolSpec:
        """Built once per tool, not every turn."""
        return ToolSpec(
            name=self.name,
            description=self.describe(),
            parameters=schema_for(self.args_model),
            read_only=self.read_only,
        )

    def describe(self) -> str:
        """The description shown to the model (``description`` unless a tool tailors it to its setup)."""
        return self.description

    async def run(self, arguments: dict[str, Any], ctx: ToolContext) -> ToolResult:
        try:
            args = convert(without_nulls(arguments), self.args_model)
        except Invalid as exc:
            return ToolResult.error(f"Invalid arguments for {self.name}: {exc}")
        return await self.execute(args, ctx)

    async def execute(self, args: ArgsT, ctx: ToolContext) -> ToolResult:
        """Run the tool with validated arguments."""
        raise NotImplementedError


def schema_for(record: type[Struct]) -> dict[str, Any]:
    """A compact JSON schema for ``record``: msgspec's, with each nested record written out where it is used.

    Some providers and local servers do not follow "$ref", so none is left; nor are the titles and empty
    "required" lists models do not need. A string enum says its type too, as some providers require.
    """
    schema = msgspec.json.schema(record)
    definitions = schema.pop("$defs")
    return _written_out(schema, definitions, ())


_SUBSCHEMA = ("items", "additionalProperties", "not")
_SUBSCHEMA_LISTS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "patternProperties")


def _written_out(schema: dict[str, Any], definitions: dict[str, Any], within: tuple[str, ...]) -> dict[str, Any]:
    ref = schema.get("$ref")
    if ref is not None:
        name = ref.rsplit("/", 1)[-1]
        if name in within:
            raise ValueError(f"{name} contains itself: a tool's arguments cannot be written out without $ref")
        definition = {key: value for key, value in definitions[name].items() if key != "title"}
        return _written_out(definition, definitions, (*within, name))
    written = dict(schema)
    written.pop("discriminator", None)  # its mapping names definitions, which are written out now
    if written.get("required") == []:
        del written["required"]
    for key in _SUBSCHEMA:
        if isinstance(written.get(key), dict):
            written[key] = _written_out(written[key], definitions, within)
    for key in _SUBSCHEMA_LISTS:
        if key in written:
            written[key] = [_written_out(item, definitions, within) for item in written[key]]
    for key in _SUBSCHEMA_MAPS:
        if key in written:
            written[key] = {name: _written_out(item, definitions, within) for name, item in written[key].items()}
    enum = written.get("enum")
    if "type" not in written and isinstance(enum, list) and all(isinstance(value, str) for value in enum):
        written["type"] = "string"
    return written


async def run_blocking(func: Callable[[], ToolResult]) -> ToolResult:
    """Run blocking file-system work off the event loop."""
    return await asyncio.to_thread(func)
