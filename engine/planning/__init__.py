"""Plan and execute (issue #17): a plan of steps, run one step at a time through the agent loop.

``planner`` gets the steps (the model writes them, or they come from the todo list the agent wrote in
plan mode); ``trigger`` says whether a request deserves a plan; ``executor`` runs one step and ticks
its todo item; ``evaluator`` judges a step's run; ``orchestrator`` puts them together and yields the
loop's events with the ``events`` of this package between them.
"""

from engine.planning.evaluator import Evaluator, HeuristicEvaluator, ModelEvaluator, StepVerdict, evaluate_run
from engine.planning.events import PlanEvent, PlanFinished, StepFinished, StepStarted
from engine.planning.executor import StepExecutor, StepRunner
from engine.planning.orchestrator import PlanAndExecute
from engine.planning.planner import Plan, Planner, PlanningError, parse_plan, plan_from_todos
from engine.planning.trigger import PlanTrigger, planning_trigger

__all__ = [
    "Evaluator",
    "HeuristicEvaluator",
    "ModelEvaluator",
    "Plan",
    "PlanAndExecute",
    "PlanEvent",
    "PlanFinished",
    "PlanTrigger",
    "Planner",
    "PlanningError",
    "StepExecutor",
    "StepFinished",
    "StepRunner",
    "StepStarted",
    "StepVerdict",
    "evaluate_run",
    "parse_plan",
    "plan_from_todos",
    "planning_trigger",
]
