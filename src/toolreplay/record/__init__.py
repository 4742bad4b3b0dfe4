"""Recording sessions: from the Anthropic SDK, from toolreplay's own agent loop, from MCP traffic."""
