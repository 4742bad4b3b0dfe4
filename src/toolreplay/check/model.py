"""What ``check`` found: typed records every check report is rendered from.

A check is a list of analyses (units), each about one committed file or one
group of them. Each unit's result is plain data (paths already relative to the
repository root) so a shard's result can be written to JSON, read back and
merged into the very report an unsharded run gives.
"""

from __future__ import annotations

import enum
import re
from collections import Counter
from dataclasses import dataclass

from toolreplay.canonical import JSONObject
from toolreplay.verdict import FailOn, Verdict, decide

MAX_SHARDS = 1000
_SHARD = re.compile(r"([0-9]{1,4})/([0-9]{1,4})")


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` with 1 <= K <= N <= 1000; a ValueError says what is wrong."""
    found = _SHARD.fullmatch(text)
    if found is None or not 1 <= int(found.group(1)) <= int(found.group(2)) <= MAX_SHARDS:
        raise ValueError(f"must be K/N with 1 <= K <= N <= {MAX_SHARDS}, as in 2/4, not {text!r}")
    return int(found.group(1)), int(found.group(2))


class Level(enum.Enum):
    """How serious a finding is; SARIF's levels."""

    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"


class Rule(enum.Enum):
    """A kind of finding. Definition order is the report order."""

    CHAIN_BROKEN = "chain-broken"
    DESTRUCTIVE_CALL = "destructive-call"
    DESTRUCTIVE_SEEN = "destructive-seen"
    PERMISSION_OVERREACH = "permission-overreach"
    BEHAVIOUR_CHANGE = "behaviour-change"
    ANNOTATION_MISMATCH = "annotation-mismatch"
    NON_DETERMINISM = "non-determinism"
    REDUNDANT_CALL = "redundant-call"

    @property
    def info(self) -> RuleInfo:
        return RULES[self]


@dataclass(frozen=True, slots=True)
class RuleInfo:
    """What a reviewer reads about a kind of finding (SARIF's reportingDescriptor)."""

    name: str
    short: str
    full: str
    help: str
    level: Level
    security_severity: str
    tags: tuple[str, ...]


RULES: dict[Rule, RuleInfo] = {
    Rule.CHAIN_BROKEN: RuleInfo(
        "ChainBroken",
        "A sealed recording was edited after it was sealed.",
        "Recomputing the SHA-256 hash chain of a sealed recording gives a different digest than the one stored: "
        "a call, its arguments or its result was changed, added or removed after sealing.",
        "Restore the recording from version control, or record it again and seal it with `toolreplay seal`. "
        "Never edit a sealed file by hand.",
        Level.ERROR,
        "8.0",
        ("security", "integrity"),
    ),
    Rule.DESTRUCTIVE_CALL: RuleInfo(
        "DestructiveCall",
        "The candidate makes a destructive call the recording never made.",
        "Replayed against the changed prompt, tools or model, the agent made a destructive tool call that the "
        "recorded session never made; when a noise baseline ran, the call is also significantly more frequent "
        "with the change than without it (or, with fail-on any-destructive, the unchanged runs never made it).",
        "Review the change to the prompt, tools or model: the agent now deletes or overwrites something it "
        "did not before. If that is intended, record the session again with the change.",
        Level.ERROR,
        "9.0",
        ("security", "behaviour"),
    ),
    Rule.DESTRUCTIVE_SEEN: RuleInfo(
        "DestructiveCallNotAttributed",
        "A destructive call seen with the change, not shown to be caused by it.",
        "With a noise baseline, the agent made a destructive call the recording never made, but it was not "
        "shown to be more frequent with the change than without it: the unchanged agent makes it too, or the "
        "runs were too few to tell ('undecided').",
        "Look at why the agent deletes or overwrites here at all. If it is undecided, replay with more runs "
        "(`rounds`, `repeat` and `noise`) to settle whether the change causes it.",
        Level.WARNING,
        "6.0",
        ("security", "behaviour"),
    ),
    Rule.PERMISSION_OVERREACH: RuleInfo(
        "PermissionOverreach",
        "A call is outside the agent's declared scope.",
        "The recording calls a tool, or passes an argument value, that the declared scope does not allow for "
        "this agent.",
        "Either the agent overreached (fix its prompt or tools) or the scope is out of date (add the tool or "
        "argument pattern to the scope file).",
        Level.ERROR,
        "7.5",
        ("security", "scope"),
    ),
    Rule.BEHAVIOUR_CHANGE: RuleInfo(
        "BehaviourChange",
        "The candidate calls tools differently from the recording.",
        "Replayed against the changed prompt, tools or model, the agent added, removed, changed or reordered a "
        "call; with a noise baseline, only behaviours significantly more frequent with the change than "
        "without it are reported.",
        "Check that the difference is what the change intended. With no noise baseline, run with `noise` to "
        "tell a real change from the agent's usual variation.",
        Level.WARNING,
        "4.0",
        ("behaviour",),
    ),
    Rule.ANNOTATION_MISMATCH: RuleInfo(
        "AnnotationMismatch",
        "A tool annotated read-only is classified as writing or destroying.",
        "The tool's MCP annotations claim it is read-only, but a classification rule says this call writes "
        "or destroys.",
        "Correct the tool's annotations, or the rule, so clients that trust the annotations are not misled.",
        Level.WARNING,
        "5.0",
        ("security", "classification"),
    ),
    Rule.NON_DETERMINISM: RuleInfo(
        "NonDeterminism",
        "An identical call got a different result.",
        "The recording holds two identical calls with different results. The first one is the divergence "
        "point: a replay answered from this recording cannot reproduce both. In a session, a write or "
        "destructive call between the two explains the difference, and is not reported.",
        "Make the tool deterministic for the recording (fixed clock, seeded randomness), or tell toolreplay "
        "which arguments to ignore when matching calls (a rules file's `ignore`).",
        Level.WARNING,
        "3.0",
        ("reliability",),
    ),
    Rule.REDUNDANT_CALL: RuleInfo(
        "RedundantCall",
        "An identical call repeats the one before it.",
        "The agent made the same call twice in a row, with nothing in between that could have changed the "
        "answer: wasted time and tokens.",
        "Tell the agent in its prompt that results can be reused, or cache the tool's answers.",
        Level.NOTE,
        "1.0",
        ("efficiency",),
    ),
}


@dataclass(frozen=True, slots=True)
class Location:
    """A line of a committed file, by its path relative to the repository root."""

    path: str
    line: int


@dataclass(frozen=True, slots=True)
class CheckFinding:
    """One finding, where it is, and a fingerprint that survives unrelated edits.

    ``related`` holds the recorded calls a finding is about, each at its own
    line. A call the recording never made has none: ``absent_from`` names that
    recording instead, as a whole file.
    """

    rule: Rule
    message: str
    location: Location
    related: tuple[Location, ...]
    fingerprint: str
    absent_from: str | None = None

    @property
    def level(self) -> Level:
        return self.rule.info.level


@dataclass(frozen=True, slots=True)
class ChangeRow:
    """One difference a replay or comparison found, with its rates (the baseline's when one ran)."""

    kind: str
    tool: str
    args: JSONObject
    klass: str
    hits: int
    runs: int
    baseline_hits: int | None
    baseline_runs: int | None
    p: float | None
    q: float | None
    verdict: str
    behaviour: int  # the changes of one behaviour (made in the same runs) share its number, counts and test
    turn: int = 1  # the person's turn of the conversation it was made in
    made_in: tuple[int, ...] = ()  # the edited runs that made it, by number
    baseline_made_in: tuple[int, ...] = ()  # the unchanged runs that made it


@dataclass(frozen=True, slots=True)
class UnrecordedRow:
    """A call the recording never made, and how it was answered."""

    tool: str
    args: JSONObject
    klass: str
    hits: int
    runs: int
    answered: str


@dataclass(frozen=True, slots=True)
class CallView:
    """One call as a report draws it: a block of a timeline, or a side of a diff row."""

    tool: str
    args: JSONObject
    klass: str
    line: int = 0  # its line in the file it was read from; 0 for a call a replay made
    answered: str = "recorded"  # how a replay answered it: recorded, stub, error result or run stopped


@dataclass(frozen=True, slots=True)
class RunView:
    """One run of a replay or one compared session: its calls, and how it ended."""

    side: str  # "edited" or "unchanged"; "compared" for the other recording of a diff
    number: int
    ending: str
    calls: tuple[CallView, ...]
    source: str = ""  # the session file a compared run was read from


@dataclass(frozen=True, slots=True)
class FieldView:
    """One argument that differs between the two calls of a changed pair (absent on a side: None there)."""

    path: str
    before: str | None  # canonical JSON of the value
    after: str | None


@dataclass(frozen=True, slots=True)
class DiffRow:
    """A call of A, a call of B, or both, and how they relate (same, moved, changed, added, removed)."""

    kind: str
    a: CallView | None
    b: CallView | None
    fields: tuple[FieldView, ...] = ()


@dataclass(frozen=True, slots=True)
class DiffView:
    """Two recordings aligned the way ``diff`` aligns them."""

    a: str
    b: str
    rows: tuple[DiffRow, ...]


@dataclass(frozen=True, slots=True)
class UnitResult:
    """What one analysis of one file (or group of files) found."""

    key: str
    analysis: str
    subject: str
    summary: str
    findings: tuple[CheckFinding, ...] = ()
    changes: tuple[ChangeRow, ...] = ()
    unrecorded: tuple[UnrecordedRow, ...] = ()
    inputs: tuple[str, ...] = ()
    # What a picture of a replay or comparison needs: the recorded calls, every run, one diff.
    recording: tuple[CallView, ...] = ()
    runs: tuple[RunView, ...] = ()
    diff: DiffView | None = None


@dataclass(frozen=True, slots=True)
class Statement:
    """What a command says of its result: its name, its verdict (the one its exit code follows) and the sentence
    that explains it. ``replay``, ``compare`` and ``diff`` state their own, from their analysis; a check's comes
    from its findings."""

    command: str
    verdict: Verdict
    sentence: str


@dataclass(frozen=True, slots=True)
class CheckReport:
    """Every unit's result, and the verdict the fail-on rule gives them.

    ``units`` names every analysis of the whole check; a shard holds the
    results of its share of them. ``stated``: the statement of the command whose
    one analysis this report holds (None for ``check``, whose findings decide).
    """

    config: str | None
    config_digest: str
    fail_on: FailOn
    units: tuple[str, ...]
    results: tuple[UnitResult, ...]
    shard: tuple[int, int] | None = None
    stated: Statement | None = None

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
        if self.fail_on is FailOn.NEVER:
            return ()
        if self.fail_on is FailOn.CHANGED:  # every finding but a destructive call not shown to be the change's
            return tuple(f for f in self.findings if f.rule is not Rule.DESTRUCTIVE_SEEN)
        return tuple(f for f in self.findings if f.level is Level.ERROR)

    @property
    def verdict(self) -> Verdict:
        findings = self.findings
        severe = any(f.level is Level.ERROR for f in findings)
        verdict = decide(self.fail_on, severe, any(f.rule is not Rule.DESTRUCTIVE_SEEN for f in findings))
        return Verdict.WARN if verdict is Verdict.PASS and findings else verdict

    @property
    def recordings(self) -> tuple[str, ...]:
        """Every committed file the check read, in order."""
        seen: dict[str, None] = {}
        for result in self.results:
            seen.update(dict.fromkeys((result.subject, *result.inputs)))
        return tuple(seen)
