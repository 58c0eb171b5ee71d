"""Skills as a tool provider: ``load_skill`` when the session has skills, and their section of the system prompt."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.instructions import InstructionContext
from engine.skills.selection import SkillSelection, open_skills
from engine.skills.tool import LoadSkillTool
from engine.tools.base import Toolset
from engine.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from engine.capabilities import BuildContext


class SkillsProvider:
    """Offers ``load_skill`` and lists the skills (name and description) in the system prompt.

    Discovery happens once, on first use, and the selection is reused by every agent built with
    this provider (a sub-agent does not walk the skill folders again).
    """

    def __init__(self, selection: SkillSelection | None = None) -> None:
        self._selection = selection

    def selection_for(self, context: BuildContext) -> SkillSelection:
        """The skills of the session (discovered from its configuration on first use)."""
        if self._selection is None:
            self._selection = open_skills(context.config.cwd, context.config.skills)
        return self._selection

    def toolset(self, context: BuildContext) -> Toolset | None:
        selection = self.selection_for(context)
        return ToolRegistry([LoadSkillTool(selection)]) if selection.active else None

    def contribute(self, context: InstructionContext) -> str | None:
        return self._selection.section if self._selection is not None else None
