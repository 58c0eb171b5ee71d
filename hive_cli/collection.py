"""The garbage collector waits while hive starts.

Start-up allocates tens of thousands of objects that live as long as the process (modules, classes,
pydantic schemas, the tool specs). The collector would walk them again and again and free nothing:
about 60 ms of a 0.7 s ``hive run`` here, one full collection alone 25-30 ms. So collection is paused
at launch, and once start-up is over what it allocated is frozen out of later collections
(``gc.freeze``) and collection resumes.
"""

from __future__ import annotations

import gc


def pause() -> None:
    """Start-up begins: no collection until ``resume``."""
    gc.disable()


def resume() -> None:
    """Start-up is over: what it allocated is left out of later collections, which run as usual again."""
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
