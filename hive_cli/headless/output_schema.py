"""``--output-schema FILE``: the final answer must be JSON valid against a JSON Schema.

The schema is read and checked before anything is sent (a bad one is a configuration error, exit 2). The model
is told the schema with the task; an answer that is not valid is put back to the model once, with what is wrong
with it, and a second invalid answer ends the run with ``EXIT_SCHEMA_MISMATCH``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, SchemaError, validators
from jsonschema.exceptions import ValidationError, relevance
from jsonschema.protocols import Validator
from msgspec import Struct

from engine.errors import UserError

EXIT_SCHEMA_MISMATCH = 4
"""The exit status of a run whose final answer was still not valid against ``--output-schema`` after one repair."""
SCHEMA_MISMATCH = "schema_mismatch"
"""The ``exit_reason`` the json and stream-json output give such a run."""
MAX_SCHEMA_BYTES = 1_000_000
MAX_PROBLEMS_SAID = 5


class Checked(Struct, frozen=True, kw_only=True):
    """An answer checked against the schema: the parsed value when valid, else what is wrong with it."""

    value: Any = None
    problem: str | None = None

    @property
    def valid(self) -> bool:
        """Whether the answer is JSON that the schema accepts."""
        return self.problem is None


class OutputSchema:
    """A JSON Schema the final answer must satisfy, read from a file."""

    def __init__(self, path: Path, schema: dict[str, Any], validator: Validator) -> None:
        self.path = path
        self.schema = schema
        self._validator = validator

    @classmethod
    def load(cls, path: Path) -> OutputSchema:
        """Read and check the schema; ``UserError`` (exit 2) naming the file when it cannot be used."""
        schema = _read_schema(path)
        validator_class = validators.validator_for(schema, default=Draft202012Validator)
        try:
            validator_class.check_schema(schema)
        except SchemaError as error:
            where = "/".join(str(part) for part in error.path) or "the top level"
            raise UserError(f"--output-schema {path}: not a valid JSON Schema at {where}: {error.message}") from None
        return cls(path, schema, validator_class(schema))

    def instructions(self) -> str:
        """What the model is told with the task: answer with one JSON value this schema accepts."""
        return (
            "When you are done, your final answer must be one JSON value, and nothing else (no prose, no code "
            "fence), that is valid against this JSON Schema:\n" + json.dumps(self.schema, indent=2)
        )

    def check(self, answer: str) -> Checked:
        """Parse ``answer`` (a lone surrounding code fence is allowed) and validate it."""
        try:
            value = json.loads(_without_fence(answer))
        except ValueError as error:
            return Checked(problem=f"the answer is not JSON ({error})")
        mismatches = sorted(self._validator.iter_errors(value), key=relevance)
        if mismatches:
            said = "; ".join(_described(m) for m in mismatches[:MAX_PROBLEMS_SAID])
            more = len(mismatches) - MAX_PROBLEMS_SAID
            return Checked(
                problem=f"the answer does not match the schema: {said}" + (f" (and {more} more)" if more > 0 else "")
            )
        return Checked(value=value)

    @staticmethod
    def repair_request(problem: str) -> str:
        """The message that gives the model its one more try."""
        return (
            f"Your final answer was not accepted: {problem}. Answer again with only the corrected JSON value, "
            "valid against the JSON Schema you were given."
        )


def _read_schema(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_SCHEMA_BYTES + 1)
    except OSError as error:
        raise UserError(f"--output-schema {path}: cannot read it ({error.strerror or error})") from None
    if len(raw) > MAX_SCHEMA_BYTES:
        raise UserError(f"--output-schema {path}: larger than {MAX_SCHEMA_BYTES:,} bytes")
    try:
        schema = json.loads(raw)
    except ValueError as error:
        raise UserError(f"--output-schema {path}: not JSON ({error})") from None
    if not isinstance(schema, dict):
        raise UserError(
            f"--output-schema {path}: a JSON Schema is an object, this file holds a {type(schema).__name__}"
        )
    return schema


def _without_fence(answer: str) -> str:
    text = answer.strip()
    if text.startswith("```") and text.endswith("```") and "\n" in text:
        return text[text.index("\n") + 1 : -3]
    return text


def _described(error: ValidationError) -> str:
    where = "/".join(str(part) for part in error.absolute_path)
    return f"at /{where}: {error.message}" if where else error.message
