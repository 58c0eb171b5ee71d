"""The markdown-it parser configured as rich.markdown.Markdown configures its own, built once and shared."""

from __future__ import annotations

import copy

from markdown_it import MarkdownIt
from rich.markdown import Markdown

PARSER = MarkdownIt().enable("strikethrough").enable("table")

_templates: dict[str, Markdown] = {}


def parsed_markdown(source: str, code_theme: str) -> Markdown:
    """A rich Markdown for `source`, parsed by the shared parser (Rich builds a new parser per Markdown,
    which costs more than parsing a typical block)."""
    template = _templates.get(code_theme)
    if template is None:
        template = _templates[code_theme] = Markdown("", code_theme=code_theme)
    markdown = copy.copy(template)
    markdown.markup = source
    markdown.parsed = PARSER.parse(source)
    return markdown
