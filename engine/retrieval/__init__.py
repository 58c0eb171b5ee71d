"""Tool retrieval: when many tools are available, offer each request only those that fit it."""
