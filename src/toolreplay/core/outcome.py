"""What an analysis found, as the typed records every report is rendered from.

A check is a list of analyses (units), each about one committed file or one
group of them; ``replay``, ``compare`` and ``diff`` are a report of one unit.
Each unit's result is plain data (paths already relative to the repository
root, kinds as enums) so a shard's result can be written to JSON
(:mod:`toolreplay.formats.check_report`), read back and merged into the very
report an unsharded run gives.
"""

from __future__ import annotations

import enum
import re
from collections import Counter

from toolreplay.core.canonical import JSONObject
from toolreplay.core.findings import ChangeVerdict, Level, Rule, decide_levels, fails
from toolreplay.core.model import CallClass, Origin, PairKind
from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn, Verdict

MAX_SHARDS = 1000
_SHARD = re.compile(r"([0-9]{1,4})/([0-9]{1,4})")


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` with 1 <= K <= N <= 1000; a ValueError says what is wrong."""
    found = _SHARD.fullmatch(text)
    if found is None or not 1 <= int(found.group(1)) <= int(found.group(2)) <= MAX_SHARDS:
        raise ValueError(f"must be K/N with 1 <= K <= N <= {MAX_SHARDS}, as in 2/4, not {text!r}")
    return int(found.group(1)), int(found.group(2))


class Analysis(enum.Enum):
    """What a unit does to its recording; the definition order is the report order."""

    POLICY = "policy"  # the pull request's config against the base's (check --base)
    VERIFY = "verify"
    BASE = "base"  # a recording against the pull request's base (check --base)
    AUDIT = "audit"
    SCOPE = "scope"
    REPLAY = "replay"
    TOOLS = "tools"  # a recorded (or candidate) tool surface against the lock, and its texts linted
    COMPARE = "compare"
    DIFF = "diff"  # only ``diff``'s own report: a check has no diff analysis


class Side(enum.Enum):
    """Which runs a run of a report is one of."""

    EDITED = "edited"
    UNCHANGED = "unchanged"
    COMPARED = "compared"  # the other recording of a diff


@record
class Location:
    """A line of a committed file, by its path relative to the repository root."""

    path: str
    line: int


@record(kw_only=True)
class CheckFinding:
    """One finding, where it is, and a fingerprint that survives unrelated edits.

    ``related`` holds the recorded calls a finding is about, each at its own
    line. A call the recording never made has none: ``absent_from`` names that
    recording instead, as a whole file.
    """

    rule: Rule
    message: str
    location: Location
    related: tuple[Location, ...] = ()
    absent_from: str | None = None
    fingerprint: str
    severity: Level | None = None  # a level other than its rule's, where the config sets one (never in JSON)
    policy: str | None = None  # the id of the policy a policy-violation is about (SARIF's rule policy/ID)

    @property
    def level(self) -> Level:
        return self.severity or self.rule.level


@record
class ChangeRow:
    """One difference a replay or comparison found, with its rates (the baseline's when one ran)."""

    kind: PairKind
    tool: str
    args: JSONObject
    klass: CallClass
    hits: int
    runs: int
    baseline_hits: int | None
    baseline_runs: int | None
    p: float | None
    q: float | None
    verdict: ChangeVerdict
    behaviour: int  # the changes of one behaviour (made in the same runs) share its number, counts and test
    turn: int = 1  # the person's turn of the conversation it was made in
    made_in: tuple[int, ...] = ()  # the edited runs that made it, by number
    baseline_made_in: tuple[int, ...] = ()  # the unchanged runs that made it
    fields: tuple[FieldView, ...] = ()  # a changed call's arguments that differ from the recorded call's


@record
class PolicyRow:
    """A policy, and how often the runs of a replay or comparison broke it (the baseline's too when one ran):
    what a report's policies table draws."""

    id: str
    level: Level
    why: str
    says: str  # the policy in a few words: ``archive_path(path={path}) before delete_path(path={path})``
    hits: int
    runs: int
    baseline_hits: int | None
    baseline_runs: int | None
    p: float | None
    q: float | None
    verdict: ChangeVerdict  # DESTRUCTIVE: an error-level policy shown broken by the edit; CHANGED: another one
    made_in: tuple[int, ...] = ()  # the edited runs that broke it, by number
    baseline_made_in: tuple[int, ...] = ()
    example: str = ""  # how the first of them broke it

    @property
    def words(self) -> str:
        """The verdict as every report writes it: VIOLATED, violated, undecided, not shown, or kept."""
        if not self.hits:
            return "kept"
        return POLICY_WORDS[self.verdict]


POLICY_WORDS = {
    ChangeVerdict.DESTRUCTIVE: "VIOLATED",
    ChangeVerdict.CHANGED: "violated",
    ChangeVerdict.UNDECIDED: "undecided",
    ChangeVerdict.NOT_SHOWN: "not shown",
}


@record
class PolicyInfo:
    """A policy a check judged by: what SARIF says of its rule (policy/ID)."""

    id: str
    level: Level
    why: str
    says: str


@record
class UnrecordedRow:
    """A call the recording never made, and how it was answered."""

    tool: str
    args: JSONObject
    klass: CallClass
    hits: int
    runs: int
    answered: Origin


@record
class ToolChange:
    """How a tool a replay was given differs from the recorded one: the change's kind and level, in words, where
    the tools file holds it, and whether a behaviour the replay found calls the tool."""

    kind: str
    level: Level
    tool: str
    detail: str
    location: Location
    called: bool


@record
class CallView:
    """One call as a report draws it: a block of a timeline, or a side of a diff row."""

    tool: str
    args: JSONObject
    klass: CallClass
    line: int = 0  # its line in the file it was read from; 0 for a call a replay made
    answered: Origin = Origin.RECORDED  # how a replay answered it


@record
class RunView:
    """One run of a replay or one compared session: its calls, and how it ended."""

    side: Side
    number: int
    ending: str
    source: str  # the session file a compared run was read from; "" for a run a replay made
    calls: tuple[CallView, ...]


@record
class FieldView:
    """One argument that differs between the two calls of a changed pair (absent on a side: None there)."""

    path: str
    before: str | None  # canonical JSON of the value
    after: str | None


@record
class DiffRow:
    """A call of A, a call of B, or both, and how they relate (same, moved, changed, added, removed)."""

    kind: PairKind
    a: CallView | None
    b: CallView | None
    fields: tuple[FieldView, ...] = ()


@record
class DiffView:
    """Two recordings aligned the way ``diff`` aligns them."""

    a: str
    b: str
    rows: tuple[DiffRow, ...]


@record(kw_only=True)
class UnitResult:
    """What one analysis of one file (or group of files) found."""

    key: str
    analysis: Analysis
    subject: str
    summary: str
    inputs: tuple[str, ...] = ()  # the other committed files it read
    findings: tuple[CheckFinding, ...] = ()
    changes: tuple[ChangeRow, ...] = ()
    unrecorded: tuple[UnrecordedRow, ...] = ()
    tools: tuple[ToolChange, ...] = ()  # a replay given other tools: how they differ from the recorded ones
    policies: tuple[PolicyRow, ...] = ()  # each policy, and the runs that broke it
    # What a picture of a replay or comparison needs: the recorded calls, every run, one diff.
    recording: tuple[CallView, ...] = ()
    runs: tuple[RunView, ...] = ()
    diff: DiffView | None = None


@record
class Statement:
    """What a command says of its result: its name and the sentence that explains its verdict. The verdict itself
    is always the findings' (:func:`toolreplay.core.findings.decide`), whichever command states it."""

    command: str
    sentence: str


@record
class CheckReport:
    """Every unit's result, and the verdict the fail-on rule gives them.

    ``units`` names every analysis of the whole check; a shard holds the
    results of its share of them. ``stated``: the statement of the command whose
    one analysis this report holds (None for ``check``).
    """

    config: str | None
    config_digest: str
    fail_on: FailOn
    units: tuple[str, ...]
    results: tuple[UnitResult, ...]
    shard: tuple[int, int] | None = None
    stated: Statement | None = None
    policies: tuple[PolicyInfo, ...] = ()  # the policies the check judged by, each a rule of SARIF's

    @property
    def findings(self) -> tuple[CheckFinding, ...]:
        return tuple(finding for result in self.results for finding in result.findings)

    @property
    def counts(self) -> dict[Rule, int]:
        """Findings by kind, in the rules' order, kinds with none left out."""
        counted = Counter(finding.rule for finding in self.findings)
        return {rule: counted[rule] for rule in Rule if counted[rule]}

    @property
    def failing(self) -> tuple[CheckFinding, ...]:
        """The findings that fail the check under ``fail_on``."""
        return tuple(f for f in self.findings if fails(f.rule, self.fail_on, f.level))

    @property
    def verdict(self) -> Verdict:
        return decide_levels(((f.rule, f.level) for f in self.findings), self.fail_on)

    @property
    def recordings(self) -> tuple[str, ...]:
        """Every committed file the check read, in order."""
        seen: dict[str, None] = {}
        for result in self.results:
            seen.update(dict.fromkeys((result.subject, *result.inputs)))
        return tuple(seen)
