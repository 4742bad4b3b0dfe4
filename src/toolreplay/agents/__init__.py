"""Agents toolreplay can drive: a Claude model through the Messages API, or a scripted policy.

Both answer the same question, turn by turn: given the system prompt, the tools
and the conversation so far, what does the agent say next? The run loop
(:mod:`toolreplay.record.run`) and replay build on that one interface.
"""
