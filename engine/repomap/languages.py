"""The languages the map reads: which files are theirs, which grammar parses them, and what to look for.

Each grammar is its own wheel (``tree-sitter-python``, ``tree-sitter-go``...), imported the first time
a file of its language is parsed. The queries are hive's own: a definitions query whose matches pair
the defining node (``@definition.KIND``) with its name (``@name``), and a references query whose
``@reference`` captures are the identifiers a file uses.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import TYPE_CHECKING

from msgspec import Struct

if TYPE_CHECKING:
    from tree_sitter import Language, Query


class LanguageSpec(Struct, frozen=True, kw_only=True):
    """One language: its grammar's module and loader, its queries, and the nodes that hold methods."""

    name: str
    module: str
    loader: str = "language"
    definitions: str
    references: str
    containers: frozenset[str] = frozenset()
    """Node types whose functions are methods (a class body, an ``impl`` block)."""


_PYTHON = LanguageSpec(
    name="python",
    module="tree_sitter_python",
    definitions="""
        (class_definition name: (identifier) @name) @definition.class
        (function_definition name: (identifier) @name) @definition.function
    """,
    references="(identifier) @reference",
    containers=frozenset({"class_definition"}),
)
_JS_DEFINITIONS = """
    (function_declaration name: (identifier) @name) @definition.function
    (generator_function_declaration name: (identifier) @name) @definition.function
    (method_definition name: (property_identifier) @name) @definition.method
    (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @definition.function
"""
_JAVASCRIPT = LanguageSpec(
    name="javascript",
    module="tree_sitter_javascript",
    definitions=_JS_DEFINITIONS + "(class_declaration name: (identifier) @name) @definition.class",
    references="[(identifier) (property_identifier)] @reference",
)
_TS_DEFINITIONS = (
    _JS_DEFINITIONS
    + """
    (class_declaration name: (type_identifier) @name) @definition.class
    (abstract_class_declaration name: (type_identifier) @name) @definition.class
    (interface_declaration name: (type_identifier) @name) @definition.interface
    (type_alias_declaration name: (type_identifier) @name) @definition.type
    (enum_declaration name: (identifier) @name) @definition.type
"""
)
_TS_REFERENCES = "[(identifier) (property_identifier) (type_identifier)] @reference"
_TYPESCRIPT = LanguageSpec(
    name="typescript",
    module="tree_sitter_typescript",
    loader="language_typescript",
    definitions=_TS_DEFINITIONS,
    references=_TS_REFERENCES,
)
_TSX = LanguageSpec(
    name="tsx",
    module="tree_sitter_typescript",
    loader="language_tsx",
    definitions=_TS_DEFINITIONS,
    references=_TS_REFERENCES,
)
_GO = LanguageSpec(
    name="go",
    module="tree_sitter_go",
    definitions="""
        (function_declaration name: (identifier) @name) @definition.function
        (method_declaration name: (field_identifier) @name) @definition.method
        (type_spec name: (type_identifier) @name) @definition.type
    """,
    references="[(identifier) (field_identifier) (type_identifier)] @reference",
)
_RUST = LanguageSpec(
    name="rust",
    module="tree_sitter_rust",
    definitions="""
        (function_item name: (identifier) @name) @definition.function
        (function_signature_item name: (identifier) @name) @definition.function
        (struct_item name: (type_identifier) @name) @definition.class
        (enum_item name: (type_identifier) @name) @definition.type
        (trait_item name: (type_identifier) @name) @definition.interface
        (type_item name: (type_identifier) @name) @definition.type
    """,
    references="[(identifier) (field_identifier) (type_identifier)] @reference",
    containers=frozenset({"impl_item", "trait_item"}),
)
_JAVA = LanguageSpec(
    name="java",
    module="tree_sitter_java",
    definitions="""
        (class_declaration name: (identifier) @name) @definition.class
        (interface_declaration name: (identifier) @name) @definition.interface
        (enum_declaration name: (identifier) @name) @definition.type
        (record_declaration name: (identifier) @name) @definition.class
        (method_declaration name: (identifier) @name) @definition.method
        (constructor_declaration name: (identifier) @name) @definition.method
    """,
    references="[(identifier) (type_identifier)] @reference",
)

LANGUAGES: dict[str, LanguageSpec] = {
    ".py": _PYTHON,
    ".pyi": _PYTHON,
    ".js": _JAVASCRIPT,
    ".jsx": _JAVASCRIPT,
    ".mjs": _JAVASCRIPT,
    ".cjs": _JAVASCRIPT,
    ".ts": _TYPESCRIPT,
    ".mts": _TYPESCRIPT,
    ".cts": _TYPESCRIPT,
    ".tsx": _TSX,
    ".go": _GO,
    ".rs": _RUST,
    ".java": _JAVA,
}
"""The languages the map reads, by file extension."""


def language_of(path: str) -> LanguageSpec | None:
    """The language of the file at ``path`` (by its extension), or None when the map does not read it."""
    dot = path.rfind(".")
    return LANGUAGES.get(path[dot:].lower()) if dot > path.rfind("/") else None


class Grammar(Struct, frozen=True):
    """A loaded grammar and its compiled queries."""

    language: Language
    definitions: Query
    references: Query


class GrammarMissing(Exception):
    """The grammar's wheel is not installed (the map then skips the language's files)."""


@cache
def grammar(spec: LanguageSpec) -> Grammar:
    """The grammar of ``spec``, imported and its queries compiled once per process; ``GrammarMissing`` without it."""
    from tree_sitter import Language, Query

    try:
        module = importlib.import_module(spec.module)
    except ImportError:
        raise GrammarMissing(f"the {spec.name} grammar ({spec.module}) is not installed") from None
    language = Language(getattr(module, spec.loader)())
    return Grammar(language, Query(language, spec.definitions), Query(language, spec.references))
