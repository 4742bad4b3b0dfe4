"""MCP, in one place: the wire (messages as lines, the strict decoder, JSON-RPC errors and ids, protocol
versions), the replay server with its answer sources and faults, the client of a real server, and the proxy
that records. The log they write is a format (:mod:`toolreplay.formats.mcp_log.log`); a new transport is a new
module here and nothing else."""
