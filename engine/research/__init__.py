"""Deep research (issue #16): plan, search, read, judge, loop, then write a report whose citations code owns.

``pipeline`` runs the loop and yields ``events``; ``controller`` holds the stop rule; ``gather`` searches
(with fallback between providers) and reads through the result guards; ``model_calls`` counts usage per
stage within the budget; ``citations``, ``verify`` and ``report`` finish the report; ``docs_index`` is the
local-documents provider; ``setup`` builds a run from a session's configuration.
"""
