"""Reading a config file's top level, every error with its line; and finding the recordings of a directory that
has no config."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from toolreplay.core.errors import InputError, InputErrors
from toolreplay.core.files import read_text, repository_root
from toolreplay.core.verdict import FailOn
from toolreplay.formats.config.entries import (
    read_compares,
    read_policies_entry,
    read_prices,
    read_replays,
    read_scopes,
    read_tools,
    redact_off,
)
from toolreplay.formats.config.model import Config, PolicyFiles
from toolreplay.formats.config.values import ConfigReader, cost_limit, token_limit
from toolreplay.formats.parsing.yaml_text import parse_yaml
from toolreplay.stats.design import DEFAULT_ALPHA, Design, ExactTest

TOP_KEYS = (
    "sessions",
    "transcripts",
    "sealed",
    "scope",
    "rules",
    "policies",
    "strict",
    "fail-on",
    "alpha",
    "test",
    "replay",
    "compare",
    "html",
    "no-redact",
    "prices",
    "signers",
    "unsealed-edits",
    "tools",
    "max-cost",
    "max-tokens-total",
)
_FAIL_ON = tuple(f.value for f in FailOn)
UNSEALED_EDITS = ("error", "warning", "note", "ignore")


def read_config(
    path: str,
    repository: Path | None = None,
    allow_outside: bool = False,
    text: str | None = None,
    policy: PolicyFiles | None = None,
) -> Config:
    """Read and check a config file; every file it names must lie under ``repository``.

    ``repository`` is its root (by default the nearest directory at or above the
    config holding ``.git``): a config, which a pull request can edit, must not
    make the check read (and report on) files elsewhere on the machine, unless
    whoever runs the check says so with ``allow_outside``.

    ``text`` is the config's text where it is not the file's (the base's, under ``check --base``), and ``policy``
    where that config's policy files come from: a path of this tree in, the copy to read out (None: this tree's).
    Such a config's globs may match nothing here.
    """
    text = read_text(path) if text is None else text
    root = parse_yaml(text, path)
    if root is None:
        raise InputError("the config is empty; name the recordings to check (see docs/configuration.md)", path)
    top = root.called("the config").object().called("")
    repository_top = (repository or repository_root(Path(path).parent)).resolve()
    top_root = None if allow_outside else repository_top
    reader = ConfigReader(path, top_root, repository_top, policy)
    reader.errors += top.unknown(TOP_KEYS, "the config")  # said beside the rest, which is read all the same
    attempt = reader.attempt  # each key read on its own: an error in one is said beside those in the others

    def recordings_of(key: str) -> tuple[str, ...]:
        return attempt(lambda: reader.globs(top.member(key), key), ()) if key in top.value else ()

    sessions, transcripts, sealed = (recordings_of(key) for key in ("sessions", "transcripts", "sealed"))
    patterns = tuple(
        p for key in ("sessions", "transcripts", "sealed") if key in top.value for p in reader.patterns(top.member(key))
    )
    alpha = attempt(lambda: reader.alpha(top.member("alpha")), DEFAULT_ALPHA) if "alpha" in top.value else DEFAULT_ALPHA
    test = attempt(lambda: reader.test(top.member("test")), ExactTest.BOSCHLOO) if "test" in top.value else None
    design = Design(alpha, test or ExactTest.BOSCHLOO)
    get = top.get
    strict, fail_on, rules, html = get("strict"), get("fail-on"), get("rules"), get("html")
    signers, unsealed, policies = get("signers"), get("unsealed-edits"), get("policies")
    no_prices: tuple[tuple[str, tuple[float, float, float, float]], ...] = ()
    prices = attempt(lambda: read_prices(top.member("prices")), no_prices) if "prices" in top.value else no_prices
    # read before the recordings are counted: a replay's sessions are recordings the check covers, and an error in
    # an entry is said as itself, not hidden behind "no recordings"
    replays = (
        tuple(read_replays(reader, top.member("replay"), sessions, design, prices)) if "replay" in top.value else ()
    )
    replayed = tuple(path for job in replays for path in job.sessions)
    sessions = tuple(dict.fromkeys((*sessions, *replayed)))
    recordings = tuple(dict.fromkeys((*sessions, *transcripts, *sealed)))
    if replays:  # what --base counts at the base, a replay's own globs included
        entry = top.member("replay")
        items = list(entry.elements()) if isinstance(entry.value, list) else [entry]
        patterns += tuple(
            p for item in items if "sessions" in item.value for p in reader.patterns(item.member("sessions"))
        )
    no_policies: tuple[str | None, tuple[str, ...]] = (None, ())
    chosen_policies = attempt(lambda: read_policies_entry(reader, policies), no_policies) if policies else no_policies
    config = Config(
        path=path,
        recordings=recordings,
        sealed=sealed,
        sessions=sessions,
        scopes=attempt(lambda: tuple(read_scopes(reader, top.member("scope"))), ()) if "scope" in top.value else (),
        rules=attempt(lambda: reader.file(rules, "rules"), None) if rules is not None else None,
        policies=chosen_policies[0],
        policies_for=chosen_policies[1],
        strict=attempt(lambda: reader.named(strict, "strict").boolean(), False) if strict is not None else False,
        fail_on=attempt(lambda: FailOn(reader.choice(fail_on, "fail-on", _FAIL_ON)), FailOn.DESTRUCTIVE)
        if fail_on is not None
        else FailOn.DESTRUCTIVE,
        replays=replays,
        compares=attempt(lambda: tuple(read_compares(reader, top.member("compare"), design)), ())
        if "compare" in top.value
        else (),
        text=text,
        repository=top_root,
        html=attempt(lambda: reader.output(html, "html"), None) if html is not None else None,
        redact_off=attempt(lambda: redact_off(reader, top.member("no-redact")), ()) if "no-redact" in top.value else (),
        signers=attempt(lambda: reader.file(signers, "signers"), None) if signers is not None else None,
        unsealed_edits=attempt(lambda: reader.choice(unsealed, "unsealed-edits", UNSEALED_EDITS), "warning")
        if unsealed is not None
        else "warning",
        patterns=patterns,
        tools=attempt(lambda: read_tools(reader, top.member("tools")), None) if "tools" in top.value else None,
    )
    budgets = {key: top.member(key) for key in ("max-cost", "max-tokens-total") if key in top.value}
    max_cost = attempt(lambda: cost_limit(budgets["max-cost"]), None) if "max-cost" in budgets else None
    max_tokens = (
        attempt(lambda: token_limit(budgets["max-tokens-total"]), None) if "max-tokens-total" in budgets else None
    )
    if budgets and not replays and not reader.errors:
        first = min(budgets.values(), key=lambda node: node.line)
        reader.errors.append(InputError("a budget bounds the replays, and the config has none", path, first.line))
    config = replace(config, max_cost=max_cost, max_tokens_total=max_tokens)
    if reader.errors:
        raise InputErrors(sorted(reader.errors, key=lambda error: error.line or 0))
    if not recordings and "compare" not in top.value and policy is None:
        raise InputError(
            "the config names no recordings: add sessions, transcripts, sealed or a replay's sessions", path, top.line
        )
    return replace(config, skipped=tuple(dict.fromkeys(reader.skipped)))


_SKIP_DIRS = {".git", ".hg", ".venv", "venv", "node_modules", "__pycache__", ".tox", ".mypy_cache", ".ruff_cache"}


def discover(directory: str) -> Config:
    """The recordings under ``directory``: JSON Lines transcripts (sealed or not) and session files."""
    from toolreplay.formats.kinds import Kind, sniff_kind  # noqa: PLC0415 - reading recordings costs imports

    recordings: list[str] = []
    sealed: list[str] = []
    sessions: list[str] = []

    def unreadable(exc: OSError) -> None:
        raise InputError(f"cannot read the directory: {exc.strerror or exc}", exc.filename or directory)

    for top, dirs, files in os.walk(directory, onerror=unreadable):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith("."))
        for name in sorted(files):
            if not name.endswith((".json", ".jsonl")):
                continue
            path = os.path.normpath(os.path.join(top, name))
            kind = sniff_kind(path)
            if kind is None:
                continue
            recordings.append(path)
            if kind.sealed:
                sealed.append(path)
            if kind in (Kind.SESSION, Kind.SEALED_SESSION):
                sessions.append(path)
    return Config(None, tuple(recordings), tuple(sealed), tuple(sessions), discovered=directory)
