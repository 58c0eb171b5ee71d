"""Long-term memory: notes the model keeps across sessions, per user and per project (off unless enabled).

Only ``options`` is imported when memory is off; the store, the tools and litellm's embeddings load
when a session enables it.
"""
