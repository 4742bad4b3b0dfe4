"""The line-oriented text reports.

No timestamps, no randomness and a fixed order, so two runs on the same input
print the same bytes and a committed report diffs to nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from toolreplay.analysis.diff import FieldChange
from toolreplay.core.canonical import JSONObject
from toolreplay.core.escape import for_terminal, lines_for_terminal, one_line
from toolreplay.core.findings import ChangeVerdict, Level
from toolreplay.core.model import Call, Finding, PairKind, Session, content_text
from toolreplay.core.wording import agree, count, format_call, format_changed, format_value, tally
from toolreplay.formats.session.shape import Outline
from toolreplay.replay import reading
from toolreplay.results.statements import diff_verdict, noise_verdict, replay_verdict

if TYPE_CHECKING:  # the results rendered here; each command loads only the analysis it runs
    from toolreplay.analysis.audit import AuditReport
    from toolreplay.analysis.diff import DiffResult
    from toolreplay.analysis.policies import CallPolicy
    from toolreplay.analysis.scope import ScopeReport
    from toolreplay.integrity.chain import Verification
    from toolreplay.integrity.signing import SignatureCheck
    from toolreplay.replay.engine import Run
    from toolreplay.replay.noise import NoiseReport
    from toolreplay.replay.report import ReplayReport, UnrecordedCall
    from toolreplay.results.show import ShowHead, ShownRecording, ShowRow
    from toolreplay.results.shown import FileAudit, NoiseShown, ReplayShown, SignatureShown
    from toolreplay.surface.drift import Drift


def _finding_lines(findings: Iterable[Finding]) -> list[str]:
    return [f"index {f.index}: {f.kind.value}: {f.detail}" for f in findings]


_lines = lines_for_terminal  # the report's lines, each one line with nothing a terminal obeys


def render_audit(report: AuditReport) -> str:
    """``calls``, ``divergence`` and ``findings`` header, then one line per finding."""
    divergence = "none" if report.divergence is None else f"index {report.divergence}"
    header = [f"calls: {report.calls}", f"divergence: {divergence}", f"findings: {len(report.findings)}"]
    return _lines(header + _finding_lines(report.findings))


def render_scope(report: ScopeReport) -> str:
    """``calls`` and ``findings`` header, then one line per overreach."""
    header = [f"calls: {report.calls}", f"findings: {len(report.findings)}"]
    return _lines(header + _finding_lines(report.findings))


def render_verification(result: Verification) -> str:
    """``chain: intact``, or the first broken link with the expected and found digests."""
    if result.broken is None:
        return _lines(["chain: intact"])
    broken = result.broken
    return _lines(
        [
            "chain: broken",
            f"first broken link: index {broken.index}" + ("" if broken.label is None else f" ({broken.label})"),
            f"expected: {broken.expected}",
            f"found: {broken.found}",
        ]
    )


def render_signature(checked: SignatureCheck | None, path: str) -> str:
    """``signature: good, by NAME (KEY)``, or why it does not hold; ``checked`` None: there is no signature."""
    if checked is None:
        return _lines([f"signature: none ({for_terminal(path)} does not exist)"])
    if checked.good:
        names = ", ".join(for_terminal(name) for name in checked.signers)
        return _lines([f"signature: good, by {names}" + (f" ({for_terminal(checked.key)})" if checked.key else "")])
    return _lines([f"signature: does not hold: {for_terminal(checked.reason)}"])


def _source(source: JSONObject) -> str:
    details = ", ".join(f"{key}={format_value(value, 40)}" for key, value in sorted(source.items()) if key != "kind")
    kind = str(source.get("kind", "?"))
    return f"{kind} ({details})" if details else kind


_SHOW_WIDTH = 90  # the widest the column of calls grows


def render_shown(shown: ShownRecording) -> Iterator[str]:
    """What ``show`` prints of a recording, made safe, a batch at a time: printed while it is made."""
    return made_safe(show_lines(shown.head, shown.rows))


def show_lines(head: ShowHead, rows: Iterable[ShowRow]) -> Iterator[str]:
    """A recording's header, one line per call with its class, and the final reply; not yet made safe."""
    outline = head.outline
    header = f"{head.path}: {count(head.calls, 'tool call')}"
    if outline is None:
        header += " · transcript"
    else:
        header += f" · model {outline.model} · source {_source(outline.source)}"
    yield header
    width = min(head.widest, _SHOW_WIDTH)
    digits = len(str(max(head.calls - 1, 0)))
    # A conversation of several turns shows each of the person's messages before the calls that answer it.
    said = person_texts(outline.said) if outline is not None else []
    turn = 1
    if len(said) > 1:
        yield f"turn 1: {said[0]}"
    for index, made_in, text, klass in rows:
        while len(said) > 1 and made_in > turn:
            turn += 1
            yield f"turn {turn}: {said[turn - 1]}"
        yield f"  {index:>{digits}}  {text:<{width}}  {klass}"
    for later in range(turn + 1, len(said) + 1):
        yield f"turn {later}: {said[later - 1]}"
    if outline is not None:
        reply = "(none: the run ended without one)" if outline.final_reply is None else outline.final_reply
        yield f"final reply: {reply}"


def render_show(session: Session, classes: Sequence[str]) -> str:
    """A session's header, one line per call with its class, and the final reply."""
    from toolreplay.results.show import ShowHead, show_row  # noqa: PLC0415 - only show prints rows

    rows = [show_row(call, klass) for call, klass in zip(session.calls, classes, strict=True)]
    context = session.context
    outline = Outline.of(context) if context is not None else None
    head = ShowHead(session.path, len(rows), max((len(row[2]) for row in rows), default=0), outline)
    return _lines(list(show_lines(head, rows)))


def made_safe(lines: Iterable[str], batch: int = 1024) -> Iterator[str]:
    """Report lines made safe as every report's are, a batch at a time: a report printed while it is made."""
    held: list[str] = []
    for line in lines:
        held.append(line)
        if len(held) == batch:
            yield _lines(held)
            held = []
    if held:
        yield _lines(held)


def person_texts(said: Sequence[JSONObject]) -> list[str]:
    """What the person said at each turn (their messages, in order), each as one shortened line."""
    texts = []
    for message in said:
        content = message["content"]
        text = content_text(content, " ") or ("" if isinstance(content, str) else "(no text)")
        text = " ".join(text.split())
        texts.append(text if len(text) <= 100 else text[:99] + "…")
    return texts


def _field(change: FieldChange) -> str:
    """A changed argument, ``path: before → after``, each value cut where it shows the difference."""
    before, after = format_changed(format_value(change.before, None), format_value(change.after, None))
    return f"{change.path}: {before if change.in_before else '(absent)'} → {after if change.in_after else '(absent)'}"


def render_diff(result: DiffResult) -> str:
    """Counts, then each difference (B's order, then calls only A made), the replies, the verdict."""
    a, b = result.a, result.b
    lines = [
        f"diff: {a.path} ({count(len(a.calls), 'call')}) → {b.path} ({count(len(b.calls), 'call')})",
        " · ".join(f"{kind.value} {result.count(kind)}" for kind in PairKind),
    ]
    for pair in result.differences:
        left = "" if pair.a is None else str(pair.a.index)
        right = "" if pair.b is None else str(pair.b.index)
        call = pair.b if pair.b is not None else pair.a
        assert call is not None  # a pair always holds a call
        klass = result.classes_b[pair.b.index] if pair.b is not None else result.classes_a[call.index]
        turn = f"  (turn {call.turn})" if result.turns > 1 else ""
        lines.append(f"  {pair.kind.value:<8} {left:>4} → {right:<4} {format_call(call)}  {klass.value}{turn}")
        lines.extend(f"{'':20}{_field(change)}" for change in pair.fields)
    if result.broken:
        lines.append(f"policies {b.path} breaks and {a.path} keeps:")
        lines.extend(f"  {_policy(found.policy)}: index {found.index}: {found.detail}" for found in result.broken)
    if result.similarity is not None:
        lines.append(f"final replies: {round(result.similarity * 100)}% similar (context only, not judged)")
    lines.append(f"verdict: {diff_verdict(result)}")
    return _lines(lines)


def _turn(report: ReplayReport, turn: int) -> str:
    """``  (turn 2)`` when the recording is a conversation of several turns."""
    return f"  (turn {turn})" if report.turns > 1 else ""


def _seeds(runs: Sequence[Run]) -> str:
    seeds = [run.seed for run in runs if run.seed is not None]
    if not seeds:
        return ""
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        return f", seed {seeds[0]}" if len(seeds) == 1 else f", seeds {seeds[0]}-{seeds[-1]}"
    return ", seeds " + ",".join(map(str, seeds))


def _lost(report: ReplayReport, which: str = "") -> list[str]:
    """How many runs ended in an error and so count for nothing, and any destructive call they made first."""
    if not report.lost:
        return []
    runs = count(len(report.runs), "run") + (f" {which}" if which else "")
    lines = [
        f"lost: {report.lost} of {runs} ended in an error and {agree(report.lost, 'is', 'are')} left out of every "
        f"count and test ({count(report.answered, 'run')} {agree(report.answered, 'counts', 'count')})"
    ]
    for made in report.lost_destructive:
        call = format_call(Call(0, made.tool, made.args, None, 0))
        lines.append(f"  destructive, made before the error in {count(len(made.runs), 'lost run')}: {call}")
    return lines


def _agent(report: ReplayReport) -> str:
    """The agent a side ran, and for a model where it was asked."""
    return report.candidate + (f" ({report.ran_on})" if report.ran_on else "")


def _unchanged_agent(candidate: ReplayReport, baseline: ReplayReport) -> str:
    """The unchanged side's agent, where it is another than the candidate's or asked elsewhere."""
    if not baseline.ran_on or (baseline.candidate, baseline.ran_on) == (candidate.candidate, candidate.ran_on):
        return ""
    return f" · unchanged: {_agent(baseline)}"


def render_replay(report: ReplayReport, system_source: str | None, tools_source: str | None) -> str:
    """The runs, each difference from the recording with how many runs made it, the verdict."""
    setup, runs = report.setup, report.runs
    total = report.answered
    lines = [
        f"replay: {setup.recording.path} ({count(len(setup.recording.calls), 'call')} recorded)",
        f"candidate: {_agent(report)} · system: {system_source or 'as recorded'}"
        f" · tools: {tools_source or 'as recorded'}",
        f"runs: {len(runs)}{_seeds(runs)} · endings: {tally(run.ending for run in runs)}",
    ]
    errors = sorted({run.error for run in runs if run.error})
    lines.extend(f"  error: {error}" for error in errors)
    lines.extend(_lost(report))
    if report.changes:
        lines.append("differences from the recording (runs that made each):")
        for change in report.changes:
            call = Call(0, change.tool, change.args, None, 0)
            lines.append(
                f"  {len(change.runs):>3}/{total:<3} {change.kind.value:<8} {format_call(call)}  {change.klass.value}"
                f"{_turn(report, change.turn)}"
            )
            lines.extend(f"{'':20}{_field(field)}" for field in change.fields)
    else:
        lines.append(f"differences from the recording: none, in {count(total, 'run')}")
    if report.unrecorded:
        lines.append(f"calls the recording never made (--on-unrecorded {setup.on_unrecorded.value}):")
        lines.extend(_unrecorded(item, total) for item in report.unrecorded)
    if report.policies:
        lines.append("policies (runs that broke each):")
        for broken in report.policies:
            verdict = reading.policy_verdict(_unbaselined(broken.policy), len(broken.runs))
            lines.append(f"  {len(broken.runs):>3}/{total:<3} {verdict:<9} {_policy(broken.policy)}")
            if broken.example is not None:
                lines.append(f"{'':20}first in run {broken.runs[0]}: {broken.example.detail}")
    lines.extend(_spent(runs))
    if report.budget is not None:
        lines.append(f"{report.budget}: what they show is above; the verdict cannot be a pass")
    lines.append(f"verdict: {replay_verdict(report)}")
    return _lines(lines)


def _tested_policies(report: NoiseReport, side: str) -> list[str]:
    """Each policy, with how often both sides broke it and, where the edited runs did, the test's numbers."""
    if not report.policies:
        return []
    lines = [f"policies {side}, each tested against the unchanged runs:"]
    for tested in report.policies:
        lines.append(f"  {reading.policy_verdict(tested.verdict, tested.hits):<11} {_policy(tested.policy)}")
        if tested.hits or tested.baseline_hits:
            numbers = (
                f"edited {_share(tested.hits, tested.runs, tested.interval)} · unchanged "
                f"{_share(tested.baseline_hits, tested.baseline_runs, tested.baseline_interval)}"
            )
            test = f" · {reading.policy_test_text(tested, report.level)}" if tested.hits else ""
            lines.append(f"{'':14}{numbers}{test}")
        if tested.example is not None and tested.made_in:
            lines.append(f"{'':14}first in edited run {tested.made_in[0]}: {tested.example.detail}")
    return lines


def _unbaselined(policy: CallPolicy) -> ChangeVerdict:
    """A broken policy's verdict with no baseline to weigh it against: an error-level one fails, as a new
    destructive call does."""
    return ChangeVerdict.DESTRUCTIVE if policy.level is Level.ERROR else ChangeVerdict.CHANGED


def _policy(policy: CallPolicy) -> str:
    """A policy on one line: its id, level and what it says."""
    return f"{policy.id} ({policy.level.value}): {policy.text()}"


def _spent(runs: Sequence[Run], which: str = "") -> list[str]:
    """What the runs driven now spent, when they say (tokens, and the cost a program reported), and how many came
    from the run cache, with what they spent when they were made."""
    lines = []
    new = [run.usage for run in runs if not run.cached]
    if any(u.input_tokens or u.output_tokens or u.cost_usd for u in new):
        cached = sum(u.cache_read_tokens for u in new)
        line = (
            f"tokens{which}: {sum(u.input_tokens for u in new)} in ({cached} read from cache),"
            f" {sum(u.output_tokens for u in new)} out"
        )
        cost = sum(u.cost_usd for u in new)
        lines.append(line + (f" · cost ${cost:.4f}" if cost else ""))
    old = [run.usage for run in runs if run.cached]
    if old:
        saved = sum(u.input_tokens + u.output_tokens for u in old)
        cost = sum(u.cost_usd for u in old)
        line = f"runs{which} from the run cache: {len(old)} of {len(runs)}"
        if saved or cost:
            line += f", which saved {saved} tokens" + (f" (${cost:.4f})" if cost else "")
        lines.append(line)
    return lines


def _share(hits: int, runs: int, interval: tuple[float, float]) -> str:
    rate = hits / runs if runs else 0.0
    return f"{hits}/{runs} ({rate:.0%}, 95% CI {interval[0]:.0%}-{interval[1]:.0%})"


def _unrecorded(item: UnrecordedCall, runs: int) -> str:
    call = format_call(Call(0, item.tool, item.args, None, 0))
    return f"  {len(item.runs):>3}/{runs:<3} {call}  {item.klass.value}, answered: {item.answered.words}"


def render_noise(
    report: NoiseReport,
    system_source: str | None,
    tools_source: str | None,
    candidate_line: str | None = None,
    command: str = "replay",
) -> str:
    """A replay (or, as ``command``, a comparison) with a noise baseline: each behaviour tested against the
    unchanged runs, in plain words."""
    candidate, baseline = report.candidate, report.baseline
    runs = candidate.answered
    edited = command != "replay" or system_source is not None or tools_source is not None
    edited = edited or candidate.candidate != baseline.candidate  # a comparison's edit is in its sessions
    side = "with the edit"
    recording = candidate.setup.recording
    lines = [
        f"{command}: {recording.path} ({count(len(recording.calls), 'call')} recorded)",
        candidate_line
        or f"candidate: {_agent(candidate)}{_unchanged_agent(candidate, baseline)} · system: "
        f"{system_source or 'as recorded'} · tools: {tools_source or 'as recorded'}",
        f"runs: {len(candidate.runs)} {side}{_seeds(candidate.runs)}; {len(baseline.runs)} unchanged"
        f"{_seeds(baseline.runs)} · endings: {tally(run.ending for run in (*candidate.runs, *baseline.runs))}",
    ]
    if not edited:  # the agent measured against itself: what the words below call the edit is nothing
        lines.append(f"nothing is edited: both sides run as recorded, so '{side}' below is the candidate's runs")
    rounds = reading.rounds_line(report)
    if rounds is not None:
        lines.append(rounds)
    errors = sorted({run.error for run in (*candidate.runs, *baseline.runs) if run.error})
    lines.extend(f"  error: {error}" for error in errors)
    lines.extend(_lost(candidate, side))
    lines.extend(_lost(baseline, "unchanged"))
    more_errors = reading.errors_text(report)
    if more_errors is not None:
        lines.append(f"  {more_errors}")
    if report.tested:
        lines.append(
            f"behaviours {side}, each tested against the unchanged runs ({report.design.test.title}, one-sided):"
        )
        for t in report.tested:
            numbers = (
                f"edited {_share(t.hits, t.runs, t.interval)}"
                f" · unchanged {_share(t.baseline_hits, t.baseline_runs, t.baseline_interval)} · {reading.test_text(t)}"
            )
            if t.destructive:
                lines.append(f"  {t.verdict.value:<11} {reading.reason(t)}")
                lines.append(f"{'':14}{numbers}")
                lines.append(f"{'':14}{reading.bound_text(t)}")
            else:
                lines.append(f"  {t.verdict.value:<11} {numbers}")
            for change in t.changes:
                call = Call(0, change.tool, change.args, None, 0)
                turn = _turn(candidate, change.turn)
                lines.append(f"{'':14}{change.kind.value} {format_call(call)}  {change.klass.value}{turn}")
                lines.extend(f"{'':16}{_field(field)}" for field in change.fields)
    else:
        lines.append(f"changes {side}: none, in {count(runs, 'run')}")
    if candidate.unrecorded:
        lines.append(f"calls the recording never made, {side} (--on-unrecorded {candidate.setup.on_unrecorded.value}):")
        lines.extend(_unrecorded(item, runs) for item in candidate.unrecorded)
    lines.extend(_tested_policies(report, side))
    lines.extend(_spent(candidate.runs, f" {side}"))
    lines.extend(_spent(baseline.runs, " unchanged"))
    lines.extend(reading.reading(report))
    if report.candidate.budget is not None:
        lines.append(f"{report.candidate.budget}: what they show is above; the verdict cannot be a pass")
    lines.append(f"verdict: {noise_verdict(report)}")
    return _lines(lines)


def render_file_audit(audited: FileAudit) -> str:
    """One file's audit; of several files, headed by its name (and a blank line after the one before)."""
    text = render_audit(audited.report)
    if audited.total > 1:
        text = ("\n" if audited.number else "") + f"== {one_line(audited.path)} ==\n" + text
    return text


def render_signature_shown(shown: SignatureShown) -> str:
    return render_signature(shown.checked, shown.path)


def replay_text(shown: ReplayShown) -> str:
    """A replay, then (given other tools) how they differ from the recorded ones, beside the behaviours."""
    text = render_replay(shown.report, shown.system, shown.tools)
    return text + _tools_given(shown.given, shown.tools, [change.tool for change in shown.report.changes])


def noise_text(shown: NoiseShown) -> str:
    """A replay with a noise baseline or a comparison, then (given other tools) how they differ."""
    text = render_noise(shown.report, shown.system, shown.tools, shown.candidate_line, shown.command)
    involved = [change.tool for change in shown.report.candidate.changes]
    return text + _tools_given(shown.given, shown.tools, involved)


def _tools_given(given: Sequence[Drift], tools: str | None, involved: list[str]) -> str:
    if not given:
        return ""
    from toolreplay.surface.drift import explained  # noqa: PLC0415 - only a replay given other tools

    return lines_for_terminal(
        [f"the tools given ({tools}) differ from the recorded ones:", *explained(given, involved)]
    )
