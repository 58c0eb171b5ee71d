"""Context management: what each model request carries from the history, and what fills the window."""

from engine.context.policy import ContextPolicy, PassThrough, PreparedRequest

__all__ = ["ContextPolicy", "PassThrough", "PreparedRequest"]
