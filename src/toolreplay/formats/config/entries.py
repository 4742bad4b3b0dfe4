"""A config's entries: each ``replay:`` and ``compare:`` entry with its settings and files, the scopes, the
``tools:`` analysis and the prices."""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Iterator
from dataclasses import replace

from toolreplay.agent_spec import AgentSpec, ModelSpec, parse_agent
from toolreplay.core.errors import InputError, InputErrors
from toolreplay.formats.config.model import CompareGroup, ReplayJob, ScopeSetting, ToolsSetting
from toolreplay.formats.config.values import ConfigReader, entry_of, items_of, read_agent, setting_refused, setting_text
from toolreplay.formats.parsing.node import Node
from toolreplay.redact import SHAPE_NAMES
from toolreplay.settings import (
    SETTINGS,
    SettingError,
    parse_settings,
    parse_value,
    setting_key,
)
from toolreplay.stats.design import Design

REPLAY_KEYS = ("sessions", *(setting_key(name) for name in SETTINGS if name != "prices"))  # prices: the top's


def redact_off(reader: ConfigReader, node: Node) -> tuple[str, ...]:
    """``no-redact: SHAPE`` or a list of them: the secret shapes the recordings were made without, as
    ``--no-redact SHAPE`` (a config names shapes; it cannot turn redaction off altogether)."""
    names: dict[str, None] = {}
    for item in items_of(node, "no-redact"):
        name = reader.named(item, "no-redact").string()
        if name not in SHAPE_NAMES:
            raise InputError(
                f"'no-redact': {name} is not a secret shape; the shapes are {', '.join(SHAPE_NAMES)}",
                item.path,
                item.line,
            )
        names[name] = None
    return tuple(names)


def read_scopes(reader: ConfigReader, node: Node) -> Iterator[ScopeSetting]:
    for item in items_of(node, "scope"):
        if not isinstance(item.value, dict):
            yield ScopeSetting(reader.file(item, "scope"), ())
            continue
        entry = entry_of(item, "a scope", ("file", "recordings"))
        if "file" not in entry.value:
            raise InputError("a scope needs 'file'", item.path, item.line)
        applies = reader.globs(entry.member("recordings"), "recordings") if "recordings" in entry.value else ()
        yield ScopeSetting(reader.file(entry.member("file"), "file"), applies)


def read_policies_entry(reader: ConfigReader, node: Node) -> tuple[str, tuple[str, ...]]:
    """``policies:``: a policy file, or ``file`` and the ``recordings`` it applies to (every recording, without)."""
    if not isinstance(node.value, dict):
        return reader.file(node, "policies"), ()
    entry = entry_of(node, "the policies", ("file", "recordings"))
    if "file" not in entry.value:
        raise InputError("'policies' needs 'file', a policy file", node.path, node.line)
    applies = reader.globs(entry.member("recordings"), "recordings") if "recordings" in entry.value else ()
    return reader.file(entry.member("file"), "policies"), applies


def read_tools(reader: ConfigReader, node: Node) -> ToolsSetting:
    """``tools:``: ``lock``, ``lint``, ``levels`` (a kind of change: error, warning or note), ``accept`` and
    ``judge`` (a model, or ``{model, url}``)."""
    entry = entry_of(node, "the tools analysis", ("lock", "lint", "levels", "accept", "judge"))
    lock = reader.file(entry.member("lock"), "lock") if "lock" in entry.value else None
    lint = reader.named(entry.member("lint"), "lint").boolean() if "lint" in entry.value else True
    levels: list[tuple[str, str, int]] = []
    if "levels" in entry.value:
        for kind, level in entry.member("levels").object().members():
            levels.append((kind, reader.choice(level, kind, ("error", "warning", "note")), level.line))
    accepted: list[tuple[str, str, str, int]] = []
    for item in items_of(entry.member("accept"), "accept") if "accept" in entry.value else []:
        accept = entry_of(item, "an accepted finding", ("rule", "tool", "reason")).require("rule", "tool", "reason")
        reason = accept.member("reason").string()
        if not reason.strip():
            raise accept.member("reason").fail("an accepted finding needs its reason, in words")
        rule, tool = accept.member("rule").string(non_empty=True), accept.member("tool").string(non_empty=True)
        accepted.append((rule, tool, reason, item.line))
    if lock is None and not lint:
        raise node.fail("the tools analysis does nothing without 'lock' and with 'lint: false'")
    judge, judge_url = _judge(entry.member("judge")) if "judge" in entry.value else (None, None)
    if judge is not None and not lint:
        raise entry.member("judge").fail("a judge reads what the lint lets pass: it needs 'lint: true'")
    return ToolsSetting(lock, lint, tuple(levels), tuple(accepted), judge, judge_url)


def _judge(node: Node) -> tuple[str, str | None]:
    """``judge: MODEL`` or ``judge: {model: MODEL, url: URL}``: the model, as ``--agent`` names one."""
    if isinstance(node.value, dict):
        entry = entry_of(node, "the judge", ("model", "url")).require("model")
        model = entry.member("model").string(non_empty=True)
        url = entry.member("url").string(non_empty=True) if "url" in entry.value else None
    else:
        model, url = node.called("judge").string(non_empty=True), None
    try:
        spec = parse_agent(model)
    except ValueError as exc:
        raise node.fail(f"judge {model}: {exc}") from None
    if not isinstance(spec, ModelSpec):
        raise node.fail(f"judge {model}: a judge is a model (a Claude id, openai/..., bedrock/..., vertex/...)")
    return model, url


_PRICE_KEYS = ("input", "output", "cache-read", "cache-write")


def read_prices(node: Node) -> tuple[tuple[str, tuple[float, float, float, float]], ...]:
    """``prices: {MODEL-ID-PREFIX: {input: N, output: N, cache-read: N, cache-write: N}}``, dollars per million
    tokens (a cache's read and write default to a tenth and 1.25 times the input's, as the API's do)."""
    found = []
    for prefix, entry in node.called("prices").object().members():
        entry.object().only(_PRICE_KEYS, "a price").require("input", "output")
        values: dict[str, float] = {}
        for key in _PRICE_KEYS:
            if key in entry.value:
                value = entry.member(key).number()
                if not (math.isfinite(value) and 0 <= value <= 10_000):
                    raise entry.member(key).fail(f"must be dollars per million tokens, 0 to 10,000, not {value:g}")
                values[key] = value
        paid = values["input"]
        found.append(
            (
                prefix,
                (paid, values["output"], values.get("cache-read", paid / 10), values.get("cache-write", paid * 1.25)),
            )
        )
    return tuple(found)


def read_replays(
    reader: ConfigReader,
    node: Node,
    sessions: tuple[str, ...],
    design: Design,
    prices: tuple[tuple[str, tuple[float, float, float, float]], ...] = (),
) -> Iterator[ReplayJob]:
    """Each replay entry, those refused kept as the reader's errors."""
    none: list[Node] = []
    items = reader.attempt(lambda: items_of(node, "replay"), none)
    for item in items:
        job = reader.attempt(functools.partial(_replay, reader, item, sessions, design, prices), None)
        if job is not None:
            yield job


def _entry_files(
    reader: ConfigReader, given: dict[str, Node | None], refused: list[InputError]
) -> tuple[dict[str, str], dict[str, AgentSpec]]:
    """A replay entry's files and agents, each refused one kept in ``refused`` (one error said of one line)."""
    paths: dict[str, str] = {}
    agents: dict[str, AgentSpec] = {}
    for name in ("cache", "system", "tools", "stubs", "task_file", "agent", "baseline_agent"):
        node, key = given[name], setting_key(name)
        if node is None:
            continue
        try:
            if name in ("agent", "baseline_agent"):
                agents[name] = read_agent(reader, node, key)
            else:
                paths[name] = reader.directory(node, key) if name == "cache" else reader.file(node, key)
        except InputError as exc:
            if not any(error.line == exc.line for error in refused):
                refused.append(exc)
    return paths, agents


def _replay(
    reader: ConfigReader,
    item: Node,
    sessions: tuple[str, ...],
    design: Design,
    prices: tuple[tuple[str, tuple[float, float, float, float]], ...],
) -> ReplayJob:
    """One replay entry; every setting and file in it that is refused is said, not only the first."""
    entry = item.called("a replay").object().called("")
    refused: list[InputError] = entry.unknown(REPLAY_KEYS, "a replay")  # said beside the rest
    chosen = sessions
    if "sessions" in entry.value:
        try:
            chosen = reader.globs(entry.member("sessions"), "sessions")
        except InputError as exc:
            refused.append(exc)
    if not chosen and not refused:
        refused.append(InputError("a replay needs sessions: give 'sessions' here or at the top", item.path, item.line))
    given = {name: entry.get(setting_key(name)) for name in SETTINGS}
    globbed = given.pop("cache_files")  # globs, matched here: no text of a setting
    texts: dict[str, str] = {}
    for name, value in given.items():
        if value is not None:
            try:
                texts[name] = setting_text(value, setting_key(name))
            except InputError as exc:
                refused.append(exc)
    texts.setdefault("alpha", repr(design.alpha))
    texts.setdefault("test", design.test.value)
    for name, text in texts.items():
        try:
            parse_value(name, text)
        except SettingError as exc:
            refused.append(setting_refused(exc, entry.get(exc.key) or item))
    # Files are named relative to the config, and must exist.
    paths, agents = _entry_files(reader, given, refused)
    agent = given["agent"]
    cache_files: tuple[str, ...] = ()
    if globbed is not None:
        try:
            cache_files = reader.globs(globbed, "cache-files")
        except InputError as exc:
            refused.append(exc)
    if refused:
        raise InputErrors(refused)
    try:
        settings = parse_settings(texts)
    except SettingError as exc:  # what only the settings together refuse (stubs without on-unrecorded stub)
        raise setting_refused(exc, entry.get(exc.key) or item) from None
    settings = replace(
        settings,
        prices=prices,
        cache=paths.get("cache"),
        system=paths.get("system"),
        tools=paths.get("tools"),
        stubs=paths.get("stubs"),
        task_file=paths.get("task_file"),
        agent=agents.get("agent"),
        baseline_agent=agents.get("baseline_agent"),
        cache_files=cache_files,
    )
    return ReplayJob(chosen, settings, item.line, agent.line if agent is not None else item.line)


def read_compares(reader: ConfigReader, node: Node, design: Design) -> Iterator[CompareGroup]:
    for item in items_of(node, "compare"):
        entry = entry_of(item, "a compare group", ("recorded", "candidates", "baseline", "alpha", "test"))
        for needed in ("recorded", "candidates", "baseline"):
            if needed not in entry.value:
                raise InputError(f"a compare group needs '{needed}'", item.path, item.line)
        recorded = reader.file(entry.member("recorded"), "recorded")
        candidates = reader.globs(entry.member("candidates"), "candidates")
        baseline = reader.globs(entry.member("baseline"), "baseline")
        roles = {os.path.realpath(recorded): "recorded"}
        for key, paths in (("candidates", candidates), ("baseline", baseline)):
            for found in paths:  # a session on both sides would be its own evidence
                if os.path.realpath(found) in roles:
                    role = roles[os.path.realpath(found)]
                    raise InputError(
                        f"'{key}': {found} is also matched by '{role}'; give each session one role",
                        item.path,
                        entry.member(key).line,
                    )
                roles[os.path.realpath(found)] = key
        yield CompareGroup(
            recorded=recorded,
            candidates=candidates,
            baseline=baseline,
            design=Design(
                reader.alpha(entry.member("alpha")) if "alpha" in entry.value else design.alpha,
                reader.test(entry.member("test")) if "test" in entry.value else design.test,
            ),
            line=item.line,
        )
