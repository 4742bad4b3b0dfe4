"""A real MCP stdio server that uses every feature a faithful replay must give back.

Built with the official `mcp` SDK, over the same simulated build host as
server.py: structured content with an output schema, tool titles and
`_meta`, images, resource links and embedded resources, content annotations,
progress and log notifications, a tool error, resources and a resource
template, a prompt, and completions. The tests record a client's workload
through `toolreplay record-mcp`, serve the log with `toolreplay serve`, and
compare everything the SDK client returns.

    python samples/mcp/features.py                  # over stdio
    python samples/mcp/features.py --http 8931      # over Streamable HTTP at http://127.0.0.1:8931/mcp
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path
from typing import Any, TypedDict

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import (
    Annotations,
    CallToolResult,
    Completion,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    ResourceTemplateReference,
    TextContent,
    TextResourceContents,
    ToolAnnotations,
)

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "ops"))

from host import BuildHost

state = BuildHost()
server = MCPServer("build-host-features", instructions="The simulated build host, with every MCP feature.")
# A 1x1 transparent PNG: an image a client can decode.
PIXEL = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d4944415478da6364f8ffbf1e000502027f6e2f6e000000"
        "0049454e44ae426082"
    )
).decode()


class DiskReport(TypedDict):
    host: str
    size_gb: float
    used_gb: float
    used_percent: int


@server.tool(
    title="Disk report",
    annotations=ToolAnnotations(read_only_hint=True, open_world_hint=False),
    meta={"example.com/cost": "free"},
)
def disk_report(host: str) -> DiskReport:
    """How full a host's disk is, as structured content with an output schema."""
    try:
        usage: dict[str, Any] = state.disk_usage(host)
    except LookupError as exc:
        raise ToolError(str(exc)) from None
    return {key: usage[key] for key in DiskReport.__annotations__}  # type: ignore[return-value]


@server.tool(title="Directory view", annotations=ToolAnnotations(read_only_hint=True))
def show_dir(host: str, path: str) -> CallToolResult:
    """A directory as text, a picture, a link to its resource and the resource itself, with annotations."""
    try:
        listing = state.list_dir(host, path)
    except LookupError as exc:
        raise ToolError(str(exc)) from None
    uri = f"host://{host}{path}"
    return CallToolResult(
        content=[
            TextContent(text=str(listing), annotations=Annotations(audience=["user"], priority=0.5)),
            ImageContent(data=PIXEL, mime_type="image/png"),
            ResourceLink(uri=uri, name=path, mime_type="application/json", title=f"{path} on {host}"),
            EmbeddedResource(resource=TextResourceContents(uri=uri, text=str(listing), mime_type="application/json")),
        ],
        structured_content={"entries": len(listing["entries"])},
        _meta={"example.com/listed": path},
    )


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True))
async def archive_path(host: str, path: str, ctx: Context) -> str:
    """Archive a directory, reporting progress and logging as it goes."""
    await ctx.info(f"archiving {path}")
    for step in range(3):
        await ctx.report_progress(step + 1, 3, f"step {step + 1} of 3")
    try:
        return str(state.archive_path(host, path))
    except LookupError as exc:
        raise ToolError(str(exc)) from None


@server.resource("host://build-04/status", title="Host status", mime_type="application/json")
def status() -> str:
    """The host's disk usage."""
    return str(state.disk_usage("build-04"))


@server.resource("host://{host}/{path}", title="A directory", mime_type="application/json")
def directory(host: str, path: str) -> str:
    """A directory's listing."""
    return str(state.list_dir(host, "/" + path))


@server.prompt(title="Free space")
def free_space(host: str, percent: str = "80") -> str:
    """Ask for a plan to bring a host's disk under a given use."""
    return f"Bring {host}'s disk under {percent}% used. Archive before you delete."


@server.completion()  # type: ignore[untyped-decorator, no-untyped-call]  # the SDK leaves it untyped
async def complete(ref: Any, argument: Any, context: Any) -> Completion | None:
    if isinstance(ref, ResourceTemplateReference) or argument.name == "host":
        return Completion(values=[h for h in ("build-04", "build-05") if h.startswith(argument.value)])
    return None


if __name__ == "__main__":
    if sys.argv[1:2] == ["--http"]:  # features.py --http PORT [json] [stateless] [any-host]: Streamable HTTP, at /mcp
        from mcp.server.transport_security import TransportSecuritySettings

        options = set(sys.argv[3:])
        server.run(
            "streamable-http",
            host="127.0.0.1",
            port=int(sys.argv[2]),
            json_response="json" in options,
            stateless_http="stateless" in options,
            # any-host: no check of the Host header, for a proxy in front that rewrites it without the port
            transport_security=(
                TransportSecuritySettings(enable_dns_rebinding_protection=False) if "any-host" in options else None
            ),
        )
    else:
        server.run("stdio")
