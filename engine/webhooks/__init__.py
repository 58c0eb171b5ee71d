"""Webhooks (issue #18): JSON event notifications signed with HMAC-SHA256; so far, the settings."""
