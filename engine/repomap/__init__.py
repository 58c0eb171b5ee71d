"""The repository map: a ranked, token-budgeted outline of the definitions that matter in a project.

Files are parsed with tree-sitter (:mod:`engine.repomap.languages`), each file's definitions and
references kept in hive's cache by content (:mod:`engine.repomap.cache`), definitions ranked by how
often other files reference them (:mod:`engine.repomap.rank`) and written as an outline that fits a
token budget (:mod:`engine.repomap.render`). :mod:`engine.repomap.build` puts it together; the
``repo_map`` tool and the first-request section use it. Nothing here imports a grammar until a file
of its language is parsed.
"""
