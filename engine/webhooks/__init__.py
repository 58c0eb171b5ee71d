"""Webhooks (issue #18): JSON notifications of a session's events, signed with HMAC-SHA256, sent in the background.

``options`` is the settings section, ``targets`` reads the secrets, ``payloads`` builds the bodies, ``signing``
signs and verifies, and ``sender`` delivers (imported only by sessions that have endpoints).
"""
