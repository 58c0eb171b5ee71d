"""The base class of the built-in tools' argument models."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, model_validator


class ToolArgs(BaseModel):
    """Arguments as a model sends them: unknown names are refused, and ``null`` means "not given"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _drop_nulls(cls, data: Any) -> Any:
        # Models often send null for optional parameters; treat it as leaving them out so the
        # defaults apply and the schema can stay a plain type instead of "type or null".
        if isinstance(data, dict):
            return {key: value for key, value in data.items() if value is not None}
        return data
