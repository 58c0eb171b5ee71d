"""Secrets never reach the model: every tool result is searched for credentials, which are replaced.

The rules are detect-secrets' plugins' own regexes (the ``detect-secrets`` package, imported at the
first tool result), run with google-re2 where RE2 takes them; hive adds a few formats they lack,
passwords in URLs, and the values of the secret variables of hive's environment. ``marker`` is the
one part the terminal imports: it counts the replacements in a result.
"""
