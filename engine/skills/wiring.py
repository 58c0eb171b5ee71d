"""What ``open_session`` needs from skills: the session's selection, its prompt contributor and its tool."""

from __future__ import annotations

from pathlib import Path

from engine.skills.options import SkillOptions, skill_options
from engine.skills.selection import SkillInstructions, SkillSelection, open_skills
from engine.skills.tool import LoadSkillTool
from engine.tools.base import Tool


def session_skills(cwd: Path, options: SkillOptions | None = None) -> SkillSelection:
    """The skills of a session in ``cwd``; without ``options``, the settings files' ``skills`` section decides.

    A broken settings file raises ``ConfigError``; problems with skills never raise (see the catalog's diagnostics).
    """
    if options is None:
        from engine.settings import load_settings

        options = skill_options(load_settings(cwd), cwd)
    return open_skills(cwd, options)


def skill_tools(selection: SkillSelection) -> list[Tool]:
    """``load_skill`` when the session has skills to load, else nothing."""
    return [LoadSkillTool(selection)] if selection.active else []


def skill_contributors(selection: SkillSelection) -> list[SkillInstructions]:
    """The contributor listing the session's skills in the system prompt."""
    return [SkillInstructions(selection)]
