"""Every MCP test may run the npm reference servers."""

from __future__ import annotations

import pytest

from tests.support.mcp_servers import require_reference_servers


@pytest.fixture(autouse=True)
def reference_servers() -> None:
    require_reference_servers()
