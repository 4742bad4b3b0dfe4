"""MCP proxy logs: what ``record-mcp`` writes and reads (:mod:`.log`), a run of one turned into a session
(:mod:`.importer`), and a tool result's content between MCP and the Messages API (:mod:`.content`).

A proxy sees only MCP traffic, never the prompt or the model's words, so the session built from a run carries
the task, system prompt, final reply and model name the user supplies, and one assistant turn per call.
"""
