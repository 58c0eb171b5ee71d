"""What a server entry from the project's files may take from the person: which variables, which loaders.

A project's ``.mcp.json`` or ``.ironhive/plugins.yaml`` came with the repository. Two of its powers
are the person's to grant, not the file's:

- ``${VAR}``: in a project that is not trusted, a variable of the person's environment is expanded
  only when they allowed it for that server (``hive mcp approve NAME --env VAR``, kept with the
  approval); any other expands as if unset (to its ``:-default``, else empty) and hive says which.
  In a trusted project the entry expands as written: the trust review listed the variables it uses.
- ``env``: a variable that decides what code a program loads (``NODE_OPTIONS``, ``LD_PRELOAD``,
  ``PYTHONPATH``, ``BASH_ENV``, ``PATH``, ``npm_config_*``... :mod:`engine.policy.risky_env`) is
  refused: the server is not started and hive says why. An approval pins the files a server runs,
  not what such a variable would make it load. An entry in the person's own ``plugins.yaml`` may
  set them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

HARMLESS = frozenset(
    {"PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONUTF8", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED"}
)
"""Variables the risky list names by their prefix that only change how a program prints or hashes."""


def loader_variables(env: Mapping[str, str]) -> list[str]:
    """The names in ``env`` that decide what code a program loads (sorted); a project's entry may not set them."""
    if not env:
        return []
    from engine.policy.risky_env import risky_variable  # imported here: compiled only for an entry with an env

    return sorted(name for name in env if name.upper() not in HARMLESS and risky_variable(name))


def loader_problem(source: str, name: str, variables: Iterable[str]) -> str:
    """Why a project's server that sets loader ``variables`` is not started, and what the person can do."""
    listed = ", ".join(variables)
    return (
        f"{source}: server {name!r} sets {listed} in its environment, which decides what code it loads;"
        " hive does not start a project's server that sets it (copy the entry into your own plugins.yaml"
        " to run it that way)"
    )


def withheld_notice(name: str, source: str, variables: Iterable[str]) -> str:
    """Said once when a project's server uses variables the person has not allowed for it."""
    names = list(variables)
    wanted = ", ".join(f"${variable}" for variable in names)
    options = " ".join(f"--env {variable}" for variable in names)
    return (
        f"MCP server {name} ({source}) wants {wanted}; it is not passed to a project's server unless you allow it:"
        f" hive mcp approve {name} {options}"
    )
