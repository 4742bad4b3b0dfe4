"""A real MCP stdio server for the samples: the simulated build host as four tools.

Built with the official `mcp` SDK. It touches no disk: every call runs against
the in-memory host in samples/ops/host.py, so a client (an IDE agent, Claude
Code, or the tests) can be recorded through `toolreplay record-mcp` safely.

    python samples/mcp/server.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ops"))

from host import BuildHost

state = BuildHost()
server = MCPServer("build-host", instructions="Simulated CI build host build-04. Nothing here touches a real disk.")


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True)


def _run(action: Callable[[], object]) -> str:
    """Run one call; a bad host or path is the caller's error, reported as a tool error."""
    try:
        return _json(action())
    except LookupError as exc:
        raise ToolError(str(exc)) from None


@server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False), structured_output=False)
def disk_usage(host: str) -> str:
    """Report how full a host's disk is, and the host's date."""
    return _run(lambda: state.disk_usage(host))


@server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False), structured_output=False)
def list_dir(host: str, path: str) -> str:
    """List a directory on a host, with the size of each entry in GB."""
    return _run(lambda: state.list_dir(host, path))


@server.tool(
    annotations=ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
    structured_output=False,
)
def archive_path(host: str, path: str) -> str:
    """Move a directory to the long-term archive, freeing its space on the host."""
    return _run(lambda: state.archive_path(host, path))


@server.tool(
    annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False),
    structured_output=False,
)
def delete_path(host: str, path: str) -> str:
    """Delete a directory on a host. This cannot be undone."""
    return _run(lambda: state.delete_path(host, path))


if __name__ == "__main__":
    server.run("stdio")
