"""hive's own context management as a capability: observation masking, compaction, caching, goal reminders.

It gives the first layer of the context policy and the ``recall_result`` tool that reads masked results
back; a capability after it may wrap or replace the policy (a host's own context policy).
"""

from __future__ import annotations

from collections.abc import Callable

from engine.capabilities import BuildContext, Capability
from engine.context.caching import PromptCaching
from engine.context.compaction import CompactionLimit, Compactor
from engine.context.fitting import FixedPartFit
from engine.context.masking import ObservationMasking
from engine.context.options import ContextOptions
from engine.context.policy import ContextPolicy
from engine.context.recall import recall_toolset
from engine.context.reminder import GoalReminder
from engine.context.window import Windows
from engine.conversation import Conversation
from engine.tools.base import Toolset


class ContextManagement(Capability):
    """The default context policy of every agent, and ``recall_result`` over its conversation."""

    def toolset(self, context: BuildContext) -> Toolset | None:
        conversation = context.conversation
        return recall_toolset(lambda: conversation.messages)

    def context_policy(self, inner: ContextPolicy | None, context: BuildContext) -> ContextPolicy | None:
        slot = context.model
        options = context.config.context
        return default_context_policy(
            options, lambda: slot.name, context.conversation, context.compactor, context.windows
        )

    def for_child(self) -> Capability | None:
        return self  # a sub-agent manages its own conversation the same way


class ContextPolicyLayer(Capability):
    """A host's own context policy in place of hive's."""

    def __init__(self, policy: ContextPolicy) -> None:
        self.policy = policy

    def context_policy(self, inner: ContextPolicy | None, context: BuildContext) -> ContextPolicy | None:
        return self.policy


def default_context_policy(
    options: ContextOptions,
    model: Callable[[], str],
    conversation: Conversation,
    compactor: Compactor,
    windows: Windows,
) -> ContextPolicy:
    """The fixed part fitted to the window, then observation masking with compaction ahead of time and on overflow,
    cache breakpoints, goal reminders."""
    at_guess = options.unknown_window_compaction == "at_guess"
    limit = CompactionLimit(model, options.compact_at, windows, at_guess=at_guess)
    policy: ContextPolicy = ObservationMasking(
        options.observation_masking_protected_rounds,
        compactor,
        limit,
        options.observation_masking_batch_rounds,
        options.observation_masking_min_chars,
    )
    if options.prompt_caching:
        policy = PromptCaching(policy, model)
    policy = GoalReminder(policy, lambda: conversation.messages, options.goal_reminder_after_rounds)
    return FixedPartFit(policy, model, windows, options.fixed_part_share)
