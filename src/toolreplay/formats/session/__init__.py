"""Session files: what an agent was told and every tool call it made.

:mod:`.shape` names the format's fields and versions, :mod:`.reader` reads a file with the line of every
value, :mod:`.stream` reads one as a stream (the memory of one message), :mod:`.writer` writes one, and
:mod:`.sealed` cuts one into the links of a hash chain and back.

A session is one pretty-printed JSON object (see ``docs/formats.md``): the model,
where it was recorded, the system prompt, the tool definitions with their MCP
annotations, the conversation in Anthropic Messages API form, and the agent's
final reply. The calls are read out of the conversation: each ``tool_use``
block with the ``tool_result`` that answered it.

Loading is strict about the session's own structure: unknown or missing fields,
wrong types, turns out of order, a ``tool_use`` without its ``tool_result``. Inside
a content block, only the fields toolreplay reads are checked; any others are the
Messages API's and are kept verbatim. Every error names the file, the line and
the place in the document (``messages[3].content[1]``).
"""
