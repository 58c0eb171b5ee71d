"""Agent Skills: strict validation identical to the reference validator, lenient discovery and loading,
the system-prompt section that lists them, and the ``load_skill`` tool.

Modules: ``frontmatter`` and ``yaml_subset`` (reading SKILL.md), ``validator`` and ``properties`` (the
reference's ``validate``, ``read-properties`` and ``to-prompt``), ``roots``, ``loading`` and
``discovery`` (finding and loading skills), ``options`` and ``selection`` (what a session uses, the
prompt section), ``tool`` (``load_skill``). Import from the modules: this package imports nothing,
so ``hive skills validate`` loads only what it needs.
"""
