"""Hypothesis strategies for JSON values and transcripts."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.model import Call

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**63), max_value=2**63),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
)

json_values: st.SearchStrategy[JSONValue] = st.recursive(
    _scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.text(max_size=8), children, max_size=4),
    ),
    max_leaves=8,
)

json_objects: st.SearchStrategy[JSONObject] = st.dictionaries(st.text(max_size=8), json_values, max_size=4)

tool_names = st.sampled_from(["read_file", "write_file", "search", "list_dir", "run_command", "fetch"]) | st.text(
    min_size=1, max_size=10
)


def transcripts(min_size: int = 0, max_size: int = 4, results: bool = True) -> st.SearchStrategy[list[Call]]:
    """A valid transcript: calls with indices 0..n-1. ``results=False`` gives every call the empty result, for
    what reads only the tools and the arguments (the diff): drawing results there costs half the time, for nothing.

    Four calls at most by default (it was eight): the chain's properties (tests/unit/integrity/test_chain.py) reach
    every line of the chain, the transcript reader and the canonical form with four as with eight, on every seed tried,
    in half the time. The diff asks for longer transcripts: its alignment has branches only they reach.
    """
    answers = json_objects if results else st.just({})
    entries = st.lists(st.tuples(tool_names, json_objects, answers), min_size=min_size, max_size=max_size)
    return entries.map(
        lambda items: [Call(i, tool, args, result, line=i + 1) for i, (tool, args, result) in enumerate(items)]
    )


def transcript_lines(calls: list[Call]) -> list[bytes]:
    """The calls written as a transcript file would hold them."""
    return [
        json.dumps({"index": c.index, "tool": c.tool, "args": c.args, "response": c.result}).encode() + b"\n"
        for c in calls
    ]
