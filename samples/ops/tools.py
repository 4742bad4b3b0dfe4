"""The sample's tools for `toolreplay run`: their definitions and an `execute` that runs them.

`toolreplay run` imports this file, shows `TOOLS` to the agent and calls
`execute(name, args)` for every call the agent makes. Here the calls run against
a simulated build host (see host.py), so nothing real is touched.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from host import BuildHost

_HOST_ARG = {"host": {"type": "string", "description": "Host name, for example build-04."}}
_PATH_ARG = {"path": {"type": "string", "description": "Absolute path on the host."}}

TOOLS: list[dict[str, Any]] = [
    {
        "name": "disk_usage",
        "description": "Report how full a host's disk is, and the host's date.",
        "input_schema": {"type": "object", "properties": _HOST_ARG, "required": ["host"]},
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "list_dir",
        "description": "List a directory on a host, with the size of each entry in GB.",
        "input_schema": {"type": "object", "properties": {**_HOST_ARG, **_PATH_ARG}, "required": ["host", "path"]},
        "annotations": {"readOnlyHint": True, "openWorldHint": False},
    },
    {
        "name": "archive_path",
        "description": "Move a directory to the long-term archive, freeing its space on the host.",
        "input_schema": {"type": "object", "properties": {**_HOST_ARG, **_PATH_ARG}, "required": ["host", "path"]},
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    },
    {
        "name": "delete_path",
        "description": "Delete a directory on a host. This cannot be undone.",
        "input_schema": {"type": "object", "properties": {**_HOST_ARG, **_PATH_ARG}, "required": ["host", "path"]},
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
    },
]

_host = BuildHost()


def execute(name: str, args: dict[str, Any]) -> Any:
    """Run one tool call against the simulated host."""
    handler = getattr(_host, name, None)
    if handler is None or name not in {tool["name"] for tool in TOOLS}:
        raise LookupError(f"no such tool: {name}")
    return handler(**args)
