"""Typed records from untrusted data (settings files, a model's tool arguments), checked by msgspec.

The records are msgspec ``Struct``s with their constraints in ``Annotated[..., Meta(...)]``: a class
is made in microseconds and checking data takes no validator build, so a session that reads no
settings file and a tool call both stay cheap (pydantic's import and first model cost some 150 ms).
msgspec stops at the first problem and says where in one string (``... - at `$.a[0].b```);
:func:`convert` turns that into a key path and a sentence a person, or a model, can act on.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, TypeVar

import msgspec
import msgspec.structs

T = TypeVar("T")
KeyPath = tuple[str | int, ...]

_WHERE = re.compile(r"^(?P<problem>.*?)(?: - at `\$(?P<path>[^`]*)`)?$", re.DOTALL)
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+|\.\.\.)\]")
_FIELD = re.compile(r"^Object (?P<what>contains unknown|missing required) field `(?P<name>[^`]+)`$")
_EXPECTED = re.compile(r"^Expected `(?P<want>[^`]+)`(?P<rest>.*?)(?:, got `(?P<got>[^`]+)`)?$", re.DOTALL)
_NOUNS = {
    "int": "an integer",
    "float": "a number",
    "str": "a string",
    "bool": "true or false",
    "object": "a mapping",
    "array": "a list",
    "null": "null",
}


class StrictRecord(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A record read from a file or a model: frozen, keyword-only, and an unknown key is an error.

    Subclasses repeat ``frozen=True`` (for type checkers); msgspec passes the rest on.
    """


class Invalid(ValueError):
    """Data that does not fit its record: where (``loc``, a key path) and what is wrong (``problem``)."""

    def __init__(self, loc: KeyPath, problem: str) -> None:
        super().__init__(f"{'.'.join(map(str, loc)) or '(top level)'}: {problem}")
        self.loc = loc
        self.problem = problem

    @property
    def key(self) -> str:
        """The key path as people write it (``context.compact_at``, ``todos.0.status``)."""
        return ".".join(map(str, self.loc))


def convert(data: Any, record: type[T]) -> T:
    """``data`` as a ``record``, with lax scalars (``"5"`` for an integer); a misfit raises :class:`Invalid`."""
    try:
        return msgspec.convert(data, record, strict=False, dec_hook=_path)
    except msgspec.ValidationError as exc:
        raise invalid(str(exc), record) from None


def _path(kind: type, value: Any) -> Any:
    # msgspec has no Path type of its own: a string names one
    if kind is Path and isinstance(value, str):
        return Path(value)
    raise ValueError("should be a path (a string)")


def invalid(message: str, record: type[Any]) -> Invalid:
    """msgspec's one-line ``message`` about ``record`` as an :class:`Invalid`."""
    match = _WHERE.match(message)
    assert match is not None  # the pattern matches every string
    problem, loc = match["problem"], _key_path(match["path"] or "")
    field = _FIELD.match(problem)
    if field is not None:
        unknown = field["what"] == "contains unknown"
        return Invalid((*loc, field["name"]), "unknown key" if unknown else "required but missing")
    return Invalid(loc, _sentence(problem, record, loc))


def _one_of(choices: tuple[Any, ...]) -> str:
    shown = [repr(choice) for choice in choices]
    return shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"


def _key_path(path: str) -> KeyPath:
    steps: list[str | int] = []
    for name, index in _STEP.findall(path):
        if name:
            steps.append(name)
        else:
            steps.append(int(index) if index.isdigit() else "*")
    return tuple(steps)


def _sentence(problem: str, record: type[Any], loc: KeyPath) -> str:
    if problem.startswith("Invalid enum value"):
        choices = allowed_values(record, loc)
        given = problem.removeprefix("Invalid enum value").strip()
        if choices:
            return f"should be {_one_of(choices)}, not {given}"
        return f"{given} is not one of the allowed values"
    expected = _EXPECTED.match(problem)
    if expected is None:
        return problem  # a record's own check (``__post_init__``): its message is already a sentence
    want = " or ".join(_NOUNS.get(part, part) for part in expected["want"].split(" | ") if part != "null")
    got = expected["got"]
    return f"should be {want or 'null'}{expected['rest']}" + (f", not {_NOUNS.get(got, got)}" if got else "")


def required_keys(record: type[Any]) -> tuple[str, ...]:
    """The keys a ``record`` cannot do without."""
    return tuple(field.encode_name for field in msgspec.structs.fields(record) if field.required)


def allowed_values(record: type[Any], loc: KeyPath) -> tuple[Any, ...]:
    """The literal values the field at ``loc`` of ``record`` takes (empty when it is not a literal)."""
    import msgspec.inspect as inspect  # only when a message needs it

    node: Any = inspect.type_info(record)
    for step in loc:
        node = _step_into(node, step)
        if node is None:
            return ()
    for option in _options(node):
        if isinstance(option, inspect.LiteralType):
            return tuple(option.values)
    return ()


def _step_into(node: Any, step: str | int) -> Any:
    import msgspec.inspect as inspect

    for option in _options(node):
        if isinstance(option, inspect.StructType) and isinstance(step, str):
            return next((f.type for f in option.fields if f.encode_name == step), None)
        if isinstance(option, (inspect.ListType, inspect.TupleType, inspect.VarTupleType)) and isinstance(step, int):
            return getattr(option, "item_type", None)
        if isinstance(option, inspect.DictType):
            return option.value_type
    return None


def _options(node: Any) -> tuple[Any, ...]:
    import msgspec.inspect as inspect

    if isinstance(node, inspect.Metadata):  # Annotated[..., Meta(...)]
        node = node.type
    return tuple(node.types) if isinstance(node, inspect.UnionType) else (node,)
