"""Deep research (issue #16): plan, search, extract, judge, write a cited report; so far, the settings."""
