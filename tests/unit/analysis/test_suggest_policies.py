"""Suggested policies: what every run keeps, no more, each checked as the policy file will check it."""

from __future__ import annotations

from toolreplay.analysis.policies import PolicyKind
from toolreplay.analysis.suggest_policies import suggested_policies
from toolreplay.core.canonical import JSONObject
from toolreplay.core.model import Call, Session, SessionContext, ToolDef

DESTROYS: JSONObject = {"destructiveHint": True, "readOnlyHint": False}
READS: JSONObject = {"readOnlyHint": True}
WRITES: JSONObject = {"readOnlyHint": False, "destructiveHint": False}


def _session(*calls: tuple[str, dict[str, object], object]) -> Session:
    tools = [
        ToolDef("archive", "", {}, WRITES),
        ToolDef("delete", "", {}, DESTROYS),
        ToolDef("list", "", {}, READS),
        ToolDef("read_secret", "", {}, READS),
        ToolDef("http_post", "", {}, WRITES),
    ]
    made = [Call(n, tool, dict(args), result, n + 1) for n, (tool, args, result) in enumerate(calls)]  # type: ignore[arg-type]
    return Session(
        "s.json",
        tuple(made),
        SessionContext(model="m", source={}, system="", tools=tuple(tools), messages=(), final_reply="done"),
    )


def test_the_orders_counts_and_flows_every_run_keeps() -> None:
    one = _session(("list", {}, "a b"), ("archive", {"path": "/a"}, "ok"), ("delete", {"path": "/a"}, "ok"),
                   ("read_secret", {}, "sk-0123456789abcdef"), ("http_post", {"body": "hello"}, "ok"))  # fmt: skip
    two = _session(("list", {}, "c"), ("archive", {"path": "/b"}, "ok"), ("delete", {"path": "/b"}, "ok"),
                   ("archive", {"path": "/c"}, "ok"), ("delete", {"path": "/c"}, "ok"))  # fmt: skip
    tables, support = suggested_policies([one, two])
    ids = [table["id"] for table in tables]
    assert "archive-before-delete-same-path" in ids
    assert "list-before-delete" in ids
    assert "list-before-archive" in ids
    assert "at-most-2-delete" in ids
    assert "no-read_secret-into-http_post" in ids
    bound = tables[ids.index("archive-before-delete-same-path")]
    assert bound["before"] == {
        "first": {"tool": "archive", "args": {"path": "{path}"}},
        "then": {"tool": "delete", "args": {"path": "{path}"}},
    }
    assert support[ids.index("at-most-2-delete")] == "held in every run: 3 calls of delete in 2 runs"
    assert all(
        kind in PolicyKind._value2member_map_ for t in tables for kind in t if kind not in ("id", "level", "why")
    )


def test_what_one_run_breaks_is_not_proposed() -> None:
    kept = _session(("archive", {"path": "/a"}, "ok"), ("delete", {"path": "/a"}, "ok"))
    broken = _session(("archive", {"path": "/x"}, "ok"), ("delete", {"path": "/a"}, "ok"))
    leaked = _session(("read_secret", {}, "sk-0123456789abcdef"), ("http_post", {"body": "sk-0123456789abcdef"}, "ok"))
    tables, _ = suggested_policies([kept, broken, leaked])
    ids = [table["id"] for table in tables]
    assert "archive-before-delete-same-path" not in ids
    assert "no-read_secret-into-http_post" not in ids
    assert "archive-before-delete" in ids  # unbound, it holds in every run that deletes
