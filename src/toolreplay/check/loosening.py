"""Every way a pull request's config is less strict than the base's, setting by setting, each at the pull request's
line: an entry or a matched file gone, fewer runs, a lower ``alpha``, a weaker ``fail-on``, a rule that makes a tool
less dangerous, ..."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.core.errors import InputError
from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn
from toolreplay.formats.config.model import CompareGroup, Config, ReplayJob, ScopeSetting, ToolsSetting
from toolreplay.formats.config.read import UNSEALED_EDITS
from toolreplay.formats.parsing.node import Node
from toolreplay.formats.parsing.yaml_text import parse_yaml
from toolreplay.settings import setting_key

if TYPE_CHECKING:
    pass


FAILS_ON: dict[FailOn, frozenset[str]] = {
    FailOn.NEVER: frozenset(),
    FailOn.DESTRUCTIVE: frozenset({"destructive"}),
    FailOn.ANY_DESTRUCTIVE: frozenset({"destructive", "any-destructive"}),
    FailOn.CHANGED: frozenset({"destructive", "changed"}),
}
# The replay settings a larger value of makes stricter (more runs, more turns, a higher false-FAIL budget).
MORE_IS_STRICTER = ("repeat", "noise", "rounds", "max_turns", "min_runs", "alpha", "run_timeout", "request_timeout")
BUDGETS = ("max_cost", "max_tokens_total")  # a budget stops runs: none is the strictest, a lower one looser
FILES_UNDER_REVIEW = ("system", "tools", "task_file")
AGENTS = ("agent", "baseline_agent")


@record
class Loosening:
    """One way the pull request's config is less strict than the base's: which setting, what it was and is, and
    where (the pull request's config and line; the config's first line where the setting is gone)."""

    setting: str
    was: str
    now: str
    path: str | None
    line: int
    said: str = ""  # the message, where it is not what the setting was and is

    @property
    def message(self) -> str:
        return self.said or f"{self.setting}: was {self.was}, is {self.now}"


class ConfigLines:
    """The lines of the pull request's config, by key path, for a finding to point at."""

    def __init__(self, config: Config) -> None:
        self.path = config.path
        self.root: Node | None = None
        if config.path is not None and config.text:
            try:
                self.root = parse_yaml(config.text, config.path)
            except InputError:
                self.root = None

    def at(self, *keys: str | int) -> int:
        """The line of the deepest of ``keys`` the config has (its first line where it has none of them)."""
        node = self.root
        line = 1
        for key in keys:
            if node is None:
                break
            if isinstance(key, int):
                items = list(node.elements()) if isinstance(node.value, list) else ([node] if key == 0 else [])
                node = items[key] if key < len(items) else None
            else:
                node = node.get(key) if isinstance(node.value, dict) else None
            line = node.line if node is not None else line
        return line


def loosenings(base: Config, pr: Config) -> list[Loosening]:
    """Every way ``pr`` is less strict than ``base``, in the order of the config's keys."""
    lines = ConfigLines(pr)
    found: list[Loosening] = []

    def add(setting: str, was: object, now: object, *keys: str | int, at: tuple[str | None, int] = (None, 0)) -> None:
        path, line = at  # where it is, when not in the config (the rule of a rules file)
        if path is None:
            path, line = pr.path, lines.at(*keys)
        found.append(Loosening(setting, said_of(was), said_of(now), path, line))

    for key, before, after in (
        ("sessions", base.sessions, pr.sessions),
        ("transcripts", _transcripts(base), _transcripts(pr)),
        ("sealed", base.sealed, pr.sealed),
    ):
        for path in sorted(set(before) - set(after)):
            add(key, f"matching {shown(path)}", f"not matching it: {shown(path)} is no longer checked", key)
    if not FAILS_ON[base.fail_on] <= FAILS_ON[pr.fail_on]:
        add("fail-on", base.fail_on.value, pr.fail_on.value, "fail-on")
    if base.strict and not pr.strict:
        add("strict", "true", "false", "strict")
    for field in BUDGETS:  # the check's own budget, as each replay's: a lower one stops runs sooner
        before, after = getattr(base, field), getattr(pr, field)
        if after is not None and (before is None or after < before):
            add(setting_key(field), "no limit" if before is None else before, after, setting_key(field))
    if UNSEALED_EDITS.index(pr.unsealed_edits) > UNSEALED_EDITS.index(base.unsealed_edits):
        add("unsealed-edits", base.unsealed_edits, pr.unsealed_edits, "unsealed-edits")
    if base.signers is not None and pr.signers is None:
        add("signers", "set", "gone", "signers")
    if base.rules is not None and pr.rules is None:
        add("rules", "set", "gone", "rules")
    if base.rules is not None:
        _rules_loosened(base, pr, add)
    if base.policies is not None and pr.policies is None:
        add("policies", "set", "gone", "policies")
    elif base.policies is not None:
        _policies_loosened(base.policies, pr.policies, add)
        if pr.policies_for:  # a recording the base's policies judged that the pull request's do not
            for path in sorted(set(base.policies_for or base.recordings) - set(pr.policies_for)):
                add("policies recordings", f"judging {shown(path)}", "not judging it", "policies")
    _tools_loosened(base.tools, pr.tools, add)
    _scopes_loosened(base.scopes, pr.scopes, add, base.recordings, pr.recordings)
    for number, job in enumerate(base.replays):
        if number >= len(pr.replays):
            add(f"replay {number + 1}", f"replaying {', '.join(shown(p) for p in job.sessions)}", "gone", "replay")
            continue
        _replay_loosened(number, job, pr.replays[number], add)
    given = {name for job in base.replays for name in job.settings.env or ()}
    addresses = {url for job in base.replays for url in (job.settings.base_url, job.settings.baseline_base_url)}
    for number in range(len(base.replays), len(pr.replays)):  # an entry of the pull request's own
        asked = [name for name in pr.replays[number].settings.env or () if name not in given]
        if asked:
            add(f"replay {number + 1} env", "none given", ", ".join(asked), "replay", number, "env")
        for field in ("base_url", "baseline_base_url"):
            url = getattr(pr.replays[number].settings, field)
            if url is not None and url not in addresses:  # asked at the SDK's own address instead (check/stricter.py)
                add(f"replay {number + 1} {setting_key(field)}", "the SDK's own", url, "replay", number,
                    setting_key(field))  # fmt: skip
    for number, group in enumerate(base.compares):
        if number >= len(pr.compares):
            add(f"compare {number + 1}", f"comparing against {shown(group.recorded)}", "gone", "compare")
            continue
        _compare_loosened(number, group, pr.compares[number], add)
    return found


_Add = Callable[..., None]


def _rules_loosened(base: Config, pr: Config, add: _Add) -> None:
    """Each tool the recordings call or list, and each a base rule names, that the pull request's rules make less
    dangerous than the base's do (once per tool, at the rule of the pull request's that decides it)."""
    from toolreplay.analysis.classify import Classifier, Policy, danger  # noqa: PLC0415
    from toolreplay.core.model import Call, McpServer, ToolDef  # noqa: PLC0415
    from toolreplay.formats.recording import load_session  # noqa: PLC0415
    from toolreplay.formats.rules import read_rules  # noqa: PLC0415

    assert base.rules is not None
    try:
        before = read_rules(base.rules, base.strict)
        after = read_rules(pr.rules, pr.strict) if pr.rules is not None else Policy(strict=pr.strict)
    except InputError:
        return  # a rules file that does not read is refused where the check reads it
    sessions = union(pr.sessions, base.sessions, (p for job in pr.replays for p in job.sessions))
    sessions = union(sessions, (g.recorded for g in pr.compares))
    probes: dict[str, list[Call]] = {}
    for rule in before.rules:
        if not any(ch in rule.tool for ch in "*?["):
            args = {key: value for key, value in rule.args if not (isinstance(value, str) and "*" in value)}
            probes.setdefault(rule.tool, []).append(Call(0, rule.tool, args, None, 0))
    tools: list[ToolDef] = []
    servers: list[McpServer] = []  # whose listings say which server a call is, for the rules that name one
    for path in sessions:
        try:
            session = load_session(path)
        except InputError:
            continue
        tools += session.context.tools if session.context is not None else ()
        servers += session.context.servers if session.context is not None else ()
        for call in session.calls:
            probes.setdefault(call.tool, []).append(call)
        for tool in session.context.tools if session.context is not None else ():
            probes.setdefault(tool.name, []).append(Call(0, tool.name, {}, None, 0))
    old, new = Classifier(before, tools, servers=servers), Classifier(after, tools, servers=servers)
    for name in sorted(probes):
        for call in probes[name]:
            was, now = old.classify(call), new.classify(call)
            if danger(now) < danger(was):
                line = ("rules",) if now.rule is None else ()
                where = pr.rules if now.rule is not None else None
                found_at = now.rule.line if now.rule is not None else 0
                add(f"rules {name}", f"{was.klass.value}", f"{now.klass.value}", *line, at=(where, found_at))
                break


def _policies_loosened(base: str, pr: str | None, add: _Add) -> None:
    """Each policy of the base's that the pull request's policy file drops, lowers or changes: a change the base's
    words do not make stricter (a lower count, a higher level, a shorter flow) is a loosening, at the policy's line."""
    from toolreplay.analysis.policies import PolicySet  # noqa: PLC0415
    from toolreplay.core.findings import Level  # noqa: PLC0415
    from toolreplay.formats.policies import read_policies  # noqa: PLC0415

    try:
        before = read_policies(base)
        after = read_policies(pr) if pr is not None else PolicySet()
    except InputError:
        return  # a policy file that does not read is refused where the check reads it
    ranks = {Level.NOTE: 0, Level.WARNING: 1, Level.ERROR: 2}
    now = {policy.id: policy for policy in after.policies}
    for was in before.policies:
        policy = now.get(was.id)
        if policy is None:
            add(f"policy {was.id}", f"stated ({was.text()})", "gone", "policies")
            continue
        at = (pr, policy.line)
        if ranks[policy.level] < ranks[was.level]:
            add(f"policy {was.id} level", was.level.value, policy.level.value, at=at)
        same = (was.kind, was.first, was.then) == (policy.kind, policy.first, policy.then)
        if not same:
            add(
                f"policy {was.id}",
                was.text(),
                f"{policy.text()} (changed; only the same policy is known as strict)",
                at=at,
            )
        elif policy.count > was.count:
            add(f"policy {was.id} count", was.count, policy.count, at=at)
        elif policy.min_length > was.min_length:
            add(f"policy {was.id} min-length", was.min_length, policy.min_length, at=at)


def _tools_loosened(base: ToolsSetting | None, pr: ToolsSetting | None, add: _Add) -> None:
    if base is None:
        return
    if pr is None:
        add("tools", "the tools analysis", "gone", "tools")
        return
    if base.lock is not None and pr.lock is None:
        add("tools lock", "set", "gone", "tools", "lock")
    if base.lint and not pr.lint:
        add("tools lint", "true", "false", "tools", "lint")
    if base.judge is not None and (pr.judge, pr.judge_url) != (base.judge, base.judge_url):
        # another model (or the same name elsewhere) is not known to judge as strictly; none judges nothing

        def judge(model: str | None, url: str | None) -> str:
            return "gone" if model is None else f"{model} at {url}" if url else model

        add("tools judge", judge(base.judge, base.judge_url), judge(pr.judge, pr.judge_url), "tools", "judge")
    order = ("note", "warning", "error")
    was = {kind: level for kind, level, _ in base.levels}
    for kind, level, _ in pr.levels:
        if order.index(level) < order.index(was.get(kind, "error")):
            add(f"tools levels {kind}", was.get(kind, "its default"), level, "tools", "levels", kind)
    accepted = {(rule, tool) for rule, tool, _, _ in base.accept}
    for rule, tool, _, _ in pr.accept:
        if (rule, tool) not in accepted:
            add("tools accept", f"no {rule} of {tool} accepted", f"{rule} of {tool} accepted", "tools", "accept")


def _scopes_loosened(
    base: Sequence[ScopeSetting], pr: Sequence[ScopeSetting], add: _Add, base_all: Sequence[str], pr_all: Sequence[str]
) -> None:
    from toolreplay.formats.scope import read_scope  # noqa: PLC0415 - only a config with scopes

    for number, setting in enumerate(base):
        if number >= len(pr):
            add(f"scope {number + 1}", "set", "gone", "scope")
            continue
        now = pr[number]
        covered_before = set(setting.recordings or base_all)
        covered_now = set(now.recordings or pr_all)
        for path in sorted(covered_before - covered_now):
            add(f"scope {number + 1} recordings", f"covering {shown(path)}", "not covering it", "scope")
        try:
            before, after = read_scope(setting.file), read_scope(now.file)
        except InputError:
            continue  # a scope that does not read is refused where it is checked
        for tool in sorted(after.allowed_tools - before.allowed_tools):
            add(f"scope {number + 1} allowed_tools", f"without {tool}", f"allowing {tool}", "scope")
        if before.agent != after.agent:
            add(f"scope {number + 1} agent", before.agent, after.agent, "scope")


def _replay_loosened(number: int, base: ReplayJob, pr: ReplayJob, add: _Add) -> None:
    where: tuple[str | int, ...] = ("replay", number)
    name = f"replay {number + 1}"
    for path in sorted(set(base.sessions) - set(pr.sessions)):
        add(f"{name} sessions", f"replaying {shown(path)}", "not replaying it", *where, "sessions")
    old, new = base.settings, pr.settings
    for field in MORE_IS_STRICTER:
        if getattr(new, field) < getattr(old, field):
            add(f"{name} {setting_key(field)}", getattr(old, field), getattr(new, field), *where, setting_key(field))
    for field in BUDGETS:
        before, after = getattr(old, field), getattr(new, field)
        if after is not None and (before is None or after < before):
            shown_before = "no limit" if before is None else before
            add(f"{name} {setting_key(field)}", shown_before, after, *where, setting_key(field))
    if new.on_unrecorded is not old.on_unrecorded:
        add(f"{name} on-unrecorded", old.on_unrecorded.value, new.on_unrecorded.value, *where, "on-unrecorded")
    for field in (*FILES_UNDER_REVIEW, "stubs"):
        before, after = getattr(old, field), getattr(new, field)
        if field == "stubs" and before is not None and after is not None:
            continue  # the base's stubs are what answer, whatever the pull request's say
        if before is not None and (after is None or os.path.realpath(after) != os.path.realpath(before)):
            now = shown(after) if after is not None else "gone"
            add(f"{name} {setting_key(field)}", shown(before), now, *where, setting_key(field))
    for field in AGENTS:
        before, after = getattr(old, field), getattr(new, field)
        if before is not None and after != before:
            add(
                f"{name} {setting_key(field)}",
                before.show(),
                after.show() if after else "gone",
                *where,
                setting_key(field),
            )
    for field in ("base_url", "baseline_base_url"):
        # where a model is asked is where its key is sent: the base's address is used, and a change is said
        before, after = getattr(old, field), getattr(new, field)
        if before != after:
            add(f"{name} {setting_key(field)}", before or "the SDK's own", after or "the SDK's own", *where,
                setting_key(field))  # fmt: skip
    given = set(new.env or ()) - set(old.env or ())
    if given:  # a variable a program was not given at the base: a secret the pull request asks for its own code
        add(f"{name} env", ", ".join(old.env or ()) or "none", ", ".join(new.env or ()), *where, "env")
    if old.cache_key is not None and new.cache_key != old.cache_key:
        add(f"{name} cache-key", old.cache_key, new.cache_key or "gone", *where, "cache-key")


def _compare_loosened(number: int, base: CompareGroup, pr: CompareGroup, add: _Add) -> None:
    where: tuple[str | int, ...] = ("compare", number)
    name = f"compare {number + 1}"
    if os.path.realpath(base.recorded) != os.path.realpath(pr.recorded):
        add(f"{name} recorded", shown(base.recorded), shown(pr.recorded), *where, "recorded")
    for key, before, after in (
        ("candidates", base.candidates, pr.candidates),
        ("baseline", base.baseline, pr.baseline),
    ):
        for path in sorted(set(before) - set(after)):
            add(f"{name} {key}", f"matching {shown(path)}", "not matching it", *where, key)
    if pr.design.alpha < base.design.alpha:
        add(f"{name} alpha", base.design.alpha, pr.design.alpha, *where, "alpha")


def _transcripts(config: Config) -> tuple[str, ...]:
    listed = set(config.sessions) | set(config.sealed)
    return tuple(path for path in config.recordings if path not in listed)


def shown(path: str) -> str:
    return Path(os.path.relpath(path)).as_posix()


def said_of(value: object) -> str:
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def union(*groups: Iterable[str]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(path for group in groups for path in group))
