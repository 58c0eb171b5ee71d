"""The REPL's trust question: what the project's configuration would change, exactly, then trust or not now.

Asked once, before the first model call, only when the project's files would loosen something. Every
item is printed whole, with control characters and escape sequences shown rather than obeyed, so a
hidden line cannot pass unseen. "Not now" keeps the session untrusted (the project's files only
tighten); the question comes back in the next session, and ``hive trust`` answers it from the shell.
"""

from __future__ import annotations

from prompt_toolkit.formatted_text import HTML
from rich.text import Text

from engine.trust.review import TrustReview, trust_project
from hive_cli.repl.approver import Surface, answer_keys, ask_key
from hive_cli.terminal_text import visible


async def ask_trust(review: TrustReview, view: Surface) -> bool:
    """Put the question; True when the person trusted the project (and the decision is recorded)."""
    view.pause()
    try:
        view.print(_question(review))
        keys = answer_keys({"t": "trust", "n": "no", "escape": "no"}, interrupt=False)
        answer = await ask_key(HTML("  <b>t</b> trust this project · <b>n</b> not now "), keys)
        if answer != "trust":
            view.print(Text("  not trusted: its configuration only tightens hive in this session", style="dim"))
            return False
        trust_project(review)
        view.print(
            Text("  trusted; a change to these files asks again (hive trust --revoke takes it back)", style="dim")
        )
        return True
    finally:
        view.resume()


def _question(review: TrustReview) -> Text:
    workspace = review.workspace
    again = " changed since you trusted it;" if workspace.changed else ""
    text = Text("? ", style="bold magenta")
    text.append(f"{visible(str(workspace.root))}", style="bold")
    text.append(f":{again} trusting this project lets its own configuration:\n")
    for item in review.items:
        text.append(f"  - {visible(item)}\n")
    return text
