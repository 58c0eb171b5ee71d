"""The one home of an agent's current model: the parts that call it hold the slot, and ``/model`` switches it."""

from __future__ import annotations

from collections.abc import Callable

from engine.model.types import ModelClient


class ModelSlot:
    """The client requests go to now; ``switch`` changes it for every part holding the slot (loop, compactor...)."""

    def __init__(self, client: ModelClient, factory: Callable[[str], ModelClient] | None = None) -> None:
        self.client = client
        self._factory = factory

    @property
    def name(self) -> str:
        """The model requests go to."""
        return self.client.model

    def switch(self, model: str) -> None:
        """Talk to ``model`` (at the same endpoint) from the next request on."""
        self.client = self.client_for(model)

    def client_for(self, model: str) -> ModelClient:
        """A client for ``model`` at the same endpoint, the slot left as it is (a sub-agent's or the advisor's)."""
        if self._factory is None:
            raise ValueError(f"no other model than {self.name} can be reached from here")
        return self._factory(model)
