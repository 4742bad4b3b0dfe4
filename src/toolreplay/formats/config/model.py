"""What a ``check`` configuration says, once read: the records the check runs from."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import field
from pathlib import Path

from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn
from toolreplay.settings import (
    ReplaySettings,
)
from toolreplay.stats.design import Design

DEFAULT_CONFIG = ".toolreplay.yml"

# The keys that name the policy's own files (rules, policies, scopes, stubs, the lock, the signers), which
# ``check --base`` reads as the base committed them; every other file a config names is under review, and read
# from the tree.
POLICY_KEYS = frozenset({"rules", "policies", "scope", "file", "stubs", "lock", "signers"})
PolicyFiles = Callable[[str], "str | None"]


@record
class ScopeSetting:
    """A scope file and the recordings it applies to (all of them when ``recordings`` is empty)."""

    file: str
    recordings: tuple[str, ...]


@record
class ToolsSetting:
    """The tools analysis: the lock the recorded surfaces must match, whether their texts are linted, other levels
    for kinds of change (kind, level, line), lint findings accepted (rule, tool, reason, line), and the judge. The
    kinds and rules are held to the analysis's own names when the check is planned (reading a config loads no
    analysis)."""

    lock: str | None
    lint: bool
    levels: tuple[tuple[str, str, int], ...]
    accept: tuple[tuple[str, str, str, int], ...]
    judge: str | None = None  # the model that judges each text the rules let pass (verdicts kept in the lock)
    judge_url: str | None = None  # where it is asked (None: its provider's own address)


@record
class ReplayJob:
    """Sessions to replay with one set of settings; the lines of the entry and of its agent."""

    sessions: tuple[str, ...]
    settings: ReplaySettings
    line: int
    agent_line: int


@record
class CompareGroup:
    """Recorded candidate sessions tested against recorded baseline sessions."""

    recorded: str
    candidates: tuple[str, ...]
    baseline: tuple[str, ...]
    design: Design  # one round: compare tests the sessions it is given
    line: int


@record
class Config:
    """What ``check`` reads and runs. ``path`` is None when the recordings were discovered."""

    path: str | None
    recordings: tuple[str, ...]
    sealed: tuple[str, ...]
    sessions: tuple[str, ...]
    scopes: tuple[ScopeSetting, ...] = ()
    rules: str | None = None
    policies: str | None = None  # a policy file: what the calls must never do, must do, and in what order
    policies_for: tuple[str, ...] = ()  # the recordings the policies apply to; every recording when empty
    strict: bool = False
    fail_on: FailOn = FailOn.DESTRUCTIVE
    replays: tuple[ReplayJob, ...] = ()
    compares: tuple[CompareGroup, ...] = ()
    text: str = field(default="", repr=False)
    notice: str = ""  # what to tell the user about how the recordings were found
    repository: Path | None = None  # files the check reads must lie under it; None: anywhere
    html: str | None = None  # where check writes its HTML page, unless --html says elsewhere
    redact_off: tuple[str, ...] = ()  # secret shapes the logs of cmd: runs leave alone, as the recordings did
    signers: str | None = None  # an allowed_signers file: each sealed recording must carry a signature it holds
    unsealed_edits: str = "warning"  # the level of an unsealed recording's edit against --base, or "ignore"
    patterns: tuple[str, ...] = ()  # the recording globs, absolute: what --base counts at the base
    tools: ToolsSetting | None = None  # the tools analysis, where the config asks for one
    discovered: str | None = None  # the directory the recordings were found under, with no config
    base_rules: str | None = None  # under check --base, the base's rules: another reading of every call
    base_policies: str | None = None  # under check --base, the base's policy file: each of its policies holds too
    skipped: tuple[str, ...] = ()  # what a glob matched that is no file (a FIFO, a socket), in words
    max_cost: float | None = None  # dollars the whole check's replays may spend, spread over them
    max_tokens_total: int | None = None  # tokens, likewise

    def files(self) -> tuple[str, ...]:
        """Every file the check reads: the config, the recordings, and every file the config names."""
        named: list[str] = [self.path] if self.path else []
        named += self.recordings
        named += [scope.file for scope in self.scopes]
        named += [self.rules] if self.rules else []
        named += [self.policies] if self.policies else []
        named += [self.signers] if self.signers else []
        named += [self.tools.lock] if self.tools is not None and self.tools.lock else []
        for job in self.replays:
            named += job.sessions
            chosen = job.settings
            named += [p for p in (chosen.system, chosen.tools, chosen.stubs, chosen.task_file) if p]
            for agent in (chosen.agent, chosen.baseline_agent):
                if agent is not None:  # a scripted file; the files a program's command names: its program, its prompts
                    named += agent.files(os.getcwd())  # {here} is filled when a config is read
        for group in self.compares:
            named += [group.recorded, *group.candidates, *group.baseline]
        return tuple(dict.fromkeys(named))
