"""A server's elicitation request as hive's own records: the question, its fields, and the checks on an answer.

A form-mode request carries a message and a flat JSON schema of primitive properties (strings with a
format or length bounds, numbers and integers with bounds, booleans, single-choice enums with or
without titles, multi-choice arrays of enums), each with an optional default (SEP-1034). It becomes a
:class:`FormQuestion` of :class:`QuestionField` records; a URL-mode request (2025-11-25) becomes a
:class:`UrlQuestion`. The same checks judge a value typed into a form and the answer sent back, so a
value the schema refuses never reaches the server.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any, Literal
from urllib.parse import urlsplit

from msgspec import Struct, field

Value = str | int | float | bool | list[str]
"""One answered field: a string, a number, a boolean, or the chosen values of a multi-choice field."""

FieldKind = Literal["string", "number", "integer", "boolean", "choice", "choices"]
"""``choice``: one of the field's choices; ``choices``: any number of them (a list)."""

ElicitationMode = Literal["ask", "decline", "defaults"]
"""How a session answers elicitation requests: ``ask`` the person (declined where nobody can be asked);
``decline`` every one; ``defaults``: accept a form whose every required field has a default, with the
defaults (otherwise as ``ask``)."""

_EMAIL = re.compile(r"^[^@\s]+@[^@\s]+\.[^@\s]+$")


class UnsupportedForm(ValueError):
    """The request's schema holds something a flat form cannot show (a nested object, an unknown type)."""


class Choice(Struct, frozen=True):
    """One value of a choice field and the title shown for it."""

    value: str
    title: str


class QuestionField(Struct, frozen=True, kw_only=True):
    """One property of the requested schema."""

    name: str
    kind: FieldKind
    title: str | None = None
    description: str | None = None
    required: bool = False
    default: Value | None = None
    """The schema's default (None: no default)."""
    format: str | None = None
    """A string's format: ``email``, ``uri``, ``date`` or ``date-time``."""
    min_length: int | None = None
    max_length: int | None = None
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[Choice, ...] = ()
    min_items: int | None = None
    max_items: int | None = None

    @property
    def label(self) -> str:
        """The title, else the property's name."""
        return self.title or self.name


class FormQuestion(Struct, frozen=True, kw_only=True):
    """A server asks the person to fill a form."""

    server: str
    message: str
    fields: tuple[QuestionField, ...] = ()


class UrlQuestion(Struct, frozen=True, kw_only=True):
    """A server asks the person to open a URL (out of band: hive shows it and never opens it itself)."""

    server: str
    message: str
    url: str


ElicitationQuestion = FormQuestion | UrlQuestion


class ElicitationAnswer(Struct, frozen=True, kw_only=True):
    """The person's answer: accepted (with the form's values), declined, or cancelled (dismissed)."""

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Value] = field(default_factory=dict)


def form_question(server: str, message: str, schema: Mapping[str, Any]) -> FormQuestion:
    """The form for a requested schema; ``UnsupportedForm`` when a property cannot be shown as a field."""
    properties = schema.get("properties") or {}
    if schema.get("type", "object") != "object" or not isinstance(properties, Mapping):
        raise UnsupportedForm("the requested schema is not a flat object")
    required = set(schema.get("required") or ())
    fields = tuple(_field(str(name), prop, str(name) in required) for name, prop in properties.items())
    return FormQuestion(server=server, message=message, fields=fields)


def _field(name: str, prop: Any, required: bool) -> QuestionField:
    if not isinstance(prop, Mapping):
        raise UnsupportedForm(f"property {name!r} is not a schema")
    common: dict[str, Any] = {
        "name": name,
        "title": _text(prop.get("title")),
        "description": _text(prop.get("description")),
        "required": required,
    }
    kind = prop.get("type")
    if kind == "array":
        return QuestionField(kind="choices", choices=_choices(prop.get("items") or {}, name), **common, **_items(prop))
    if kind == "string" and ("enum" in prop or "oneOf" in prop):
        return QuestionField(kind="choice", choices=_choices(prop, name), default=_default(prop), **common)
    if kind == "string":
        return QuestionField(kind="string", default=_default(prop), **common, **_string_bounds(prop))
    if kind in ("number", "integer"):
        minimum, maximum = _number(prop.get("minimum")), _number(prop.get("maximum"))
        return QuestionField(kind=kind, default=_default(prop), minimum=minimum, maximum=maximum, **common)
    if kind == "boolean":
        return QuestionField(kind="boolean", default=_default(prop), **common)
    raise UnsupportedForm(f"property {name!r} has a type a form cannot show ({kind!r})")


def _choices(schema: Any, name: str) -> tuple[Choice, ...]:
    """The choices of an enum (titled by a legacy ``enumNames``) or of a ``oneOf``/``anyOf`` of titled consts."""
    if not isinstance(schema, Mapping):
        raise UnsupportedForm(f"property {name!r} has no choices")
    titled = schema.get("oneOf") or schema.get("anyOf")
    if isinstance(titled, list) and titled:
        return tuple(Choice(str(c.get("const")), str(c.get("title") or c.get("const"))) for c in titled)
    values = schema.get("enum")
    if not isinstance(values, list) or not values:
        raise UnsupportedForm(f"property {name!r} has no choices")
    titles = schema.get("enumNames")
    titles = titles if isinstance(titles, list) and len(titles) == len(values) else values
    return tuple(Choice(str(value), str(title)) for value, title in zip(values, titles, strict=True))


def _items(prop: Mapping[str, Any]) -> dict[str, Any]:
    default = prop.get("default")
    return {
        "default": [str(v) for v in default] if isinstance(default, list) else None,
        "min_items": _count(prop.get("minItems")),
        "max_items": _count(prop.get("maxItems")),
    }


def _string_bounds(prop: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "format": _text(prop.get("format")),
        "min_length": _count(prop.get("minLength")),
        "max_length": _count(prop.get("maxLength")),
    }


def _default(prop: Mapping[str, Any]) -> Value | None:
    value = prop.get("default")
    return value if isinstance(value, str | int | float | bool) else None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def value_problem(question_field: QuestionField, value: Any) -> str | None:
    """Why ``value`` does not fit the field (None: it fits)."""
    kind = question_field.kind
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if kind in ("number", "integer"):
        return _number_problem(question_field, value)
    if kind == "choice":
        return None if value in _values(question_field) else "must be one of the choices"
    if kind == "choices":
        return _choices_problem(question_field, value)
    return _string_problem(question_field, value)


def _values(question_field: QuestionField) -> list[str]:
    return [choice.value for choice in question_field.choices]


def _number_problem(question_field: QuestionField, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return "must be a number"
    if question_field.kind == "integer" and not float(value).is_integer():
        return "must be a whole number"
    if question_field.minimum is not None and value < question_field.minimum:
        return f"must be at least {question_field.minimum:g}"
    if question_field.maximum is not None and value > question_field.maximum:
        return f"must be at most {question_field.maximum:g}"
    return None


def _choices_problem(question_field: QuestionField, value: Any) -> str | None:
    if not isinstance(value, list) or any(item not in _values(question_field) for item in value):
        return "must be a list of the choices"
    if question_field.min_items is not None and len(value) < question_field.min_items:
        return f"needs at least {question_field.min_items} choices"
    if question_field.max_items is not None and len(value) > question_field.max_items:
        return f"takes at most {question_field.max_items} choices"
    return None


def _string_problem(question_field: QuestionField, value: Any) -> str | None:
    if not isinstance(value, str):
        return "must be text"
    if question_field.min_length is not None and len(value) < question_field.min_length:
        return f"needs at least {question_field.min_length} characters"
    if question_field.max_length is not None and len(value) > question_field.max_length:
        return f"takes at most {question_field.max_length} characters"
    return _format_problem(question_field.format, value)


def _format_problem(form: str | None, value: str) -> str | None:
    if form == "email" and not _EMAIL.match(value):
        return "must be an email address"
    if form == "uri" and not (urlsplit(value).scheme and urlsplit(value).netloc):
        return "must be a URI (scheme://host...)"
    if form == "date" and not _parses(date.fromisoformat, value):
        return "must be a date (YYYY-MM-DD)"
    if form == "date-time" and not _parses(datetime.fromisoformat, value):
        return "must be a date and time (YYYY-MM-DDTHH:MM:SS)"
    return None


def _parses(parse: Any, value: str) -> bool:
    try:
        parse(value)
    except ValueError:
        return False
    return True


def answer_problems(question: FormQuestion, content: Mapping[str, Any]) -> list[str]:
    """What is wrong with an accepted form's content: missing required fields, unknown fields, bad values."""
    known = {f.name: f for f in question.fields}
    problems = [f"{name}: not a field of the form" for name in content if name not in known]
    for question_field in question.fields:
        if question_field.name not in content:
            if question_field.required:
                problems.append(f"{question_field.name}: required")
            continue
        problem = value_problem(question_field, content[question_field.name])
        if problem:
            problems.append(f"{question_field.name}: {problem}")
    return problems


def defaults_answer(question: FormQuestion) -> ElicitationAnswer | None:
    """Accept with the fields' defaults, when every required field has one that fits (None otherwise)."""
    if any(f.required and f.default is None for f in question.fields):
        return None
    content = {f.name: f.default for f in question.fields if f.default is not None}
    if answer_problems(question, content):
        return None
    return ElicitationAnswer(action="accept", content=content)
