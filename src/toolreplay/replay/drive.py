"""Driving a replay: the candidate's runs, and the unchanged configuration's when a noise baseline is asked for.

``replay`` and ``check`` both come here with a
:class:`~toolreplay.settings.ReplaySettings`, so a replay means the same thing
whichever command asked for it. The candidate's files (system prompt, tools,
stubs) are read once, into a :class:`Candidate`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from toolreplay.agent_spec import AgentSpec, FunctionSpec, ModelSpec, ProgramSpec, ScriptSpec
from toolreplay.agents.providers import provider, refusal
from toolreplay.agents.providers.base import Endpoint, endpoint_of
from toolreplay.agents.spec import read_prompt, recorded_agent
from toolreplay.analysis.classify import Classifier, Policy
from toolreplay.core.canonical import JSONObject, JSONValue
from toolreplay.core.errors import InputError, ToolreplayError, UsageError
from toolreplay.core.files import read_text
from toolreplay.core.model import UNRECORDED_TASK, Session, SessionContext, ToolDef, content_text
from toolreplay.core.records import record
from toolreplay.core.verdict import FailOn
from toolreplay.core.wording import agree, count
from toolreplay.formats.parsing.json_text import parse_json
from toolreplay.formats.parsing.node import Node
from toolreplay.formats.session.reader import parse_tools
from toolreplay.formats.stubs import Stub, read_stubs
from toolreplay.replay.engine import ReplaySetup, Run
from toolreplay.replay.noise import NoiseReport, seeds_for_baseline, weigh_changes
from toolreplay.replay.progress import Progress
from toolreplay.replay.report import ReplayReport, summarize
from toolreplay.replay.runners import Runner, Workspace, runner_for
from toolreplay.settings import DEFAULT_MAX_TOKENS, ReplaySettings
from toolreplay.stats.design import Design

if TYPE_CHECKING:
    from toolreplay.processes.isolation import RunAs
    from toolreplay.replay.budget import Budget
    from toolreplay.replay.cache import RunCache


@record
class Candidate:
    """What the candidate is told and who it is, read once from the settings' files.

    ``prompt`` and ``tools_node`` are the files as read (None when the recorded
    ones are used), so a report can point at their lines without reading them again.
    """

    system: JSONValue
    tools: tuple[ToolDef, ...]
    stubs: tuple[Stub, ...] | None  # None: no stubs file (a stub is then a default by the call's class)
    agent: AgentSpec  # what runs: a model, a program, or a scripted file found from here
    baseline_agent: AgentSpec  # without a noise baseline, the recorded agent, which need not run
    label: str  # what reports call the candidate: the agent as given, else the recorded model
    prompt: str | None = None
    tools_node: Node | None = None


def conversation_of(session: Session) -> SessionContext:
    """What a replay starts from; a transcript has none."""
    if session.context is None:
        raise InputError("a transcript has no conversation to replay; replay needs a session", session.path)
    return session.context


def with_task(session: Session, settings: ReplaySettings) -> Session:
    """The session with ``settings.task_file`` as the person's first message, where the recording lacks it (a proxy
    never sees it): a recording that holds its task keeps it, and giving another is refused, since a new task
    is no edit a replay tests."""
    if settings.task_file is None:
        return session
    context = conversation_of(session)
    first = context.messages[0] if context.messages else None
    if first is None or first.get("role") != "user" or first.get("content") != UNRECORDED_TASK:
        raise UsageError(
            f"{session.path} holds the person's message already; task-file is for a recording without one "
            "(a record-mcp log, or a session imported without --task)"
        )
    task = read_prompt(settings.task_file)
    messages = ({**first, "content": task}, *context.messages[1:])
    return replace(session, context=replace(context, messages=messages))


def untold_task(session: Session, candidate: Candidate, settings: ReplaySettings) -> str | None:
    """What to warn of when the runs would be sent the placeholder an import without a task leaves as the person's
    message (a program whose command has no ``{task}`` is never sent it); None when they would not."""
    context = session.context
    if context is None or not any(m["role"] == "user" and m["content"] == UNRECORDED_TASK for m in context.messages):
        return None
    agents = {candidate.agent, candidate.baseline_agent} if settings.noise else {candidate.agent}
    if all(isinstance(agent, ProgramSpec) and "{task}" not in agent.text for agent in agents):
        return None
    return (
        f"{session.path} holds {UNRECORDED_TASK!r} where the person's message belongs (a proxy never sees it), so "
        "every run is sent those words as its task; give the task with --task-file (task-file: in a config)"
    )


def scripts(candidate: Candidate, settings: ReplaySettings) -> list[str]:
    """The Python files this replay will run (the candidate's, and the baseline's with a noise baseline): scripted
    agents' and ``python:`` agents' files (a module's are found only when it runs)."""
    agents = {candidate.agent, candidate.baseline_agent} if settings.noise else {candidate.agent}
    found = {agent.path for agent in agents if isinstance(agent, ScriptSpec)}
    found |= {name for agent in agents if isinstance(agent, FunctionSpec) for name in agent.files(os.getcwd())}
    return sorted(found)


def program_files(candidate: Candidate) -> list[str]:
    """The files the programs of this replay name (their programs, their prompts), the baseline's even when it
    does not run: inputs, never outputs."""
    programs = {agent for agent in (candidate.agent, candidate.baseline_agent) if isinstance(agent, ProgramSpec)}
    return [name for agent in sorted(programs, key=ProgramSpec.show) for name in agent.files(os.getcwd())]


def renamed_servers(session: Session, names: Sequence[tuple[str, str]]) -> Session:
    """``session`` with its servers renamed, each (old, new); old "" is its one server."""
    if not names or session.context is None:
        return session
    servers = session.context.servers
    recorded = [server.name for server in servers]
    if not servers:
        raise InputError(
            "server-name: the session names no server to rename (it is served as one, unnamed)", session.path
        )
    chosen = dict(names)
    if "" in chosen:
        if len(servers) > 1:
            raise InputError(
                f"server-name: the session has several servers ({', '.join(recorded)}); give OLD=NEW", session.path
            )
        chosen = {recorded[0]: chosen[""]}
    unknown = [old for old in chosen if old not in recorded]
    if unknown:
        raise InputError(
            f"server-name {unknown[0]}=...: the session has no server {unknown[0]} (it has {', '.join(recorded)})",
            session.path,
        )
    after = [chosen.get(name, name) for name in recorded]
    if len(set(after)) < len(after):
        raise InputError(f"server-name: two servers would be called the same ({', '.join(after)})", session.path)
    renamed = tuple(replace(server, name=new) for server, new in zip(servers, after, strict=True))
    return replace(session, context=replace(session.context, servers=renamed))


def load_candidate(session: Session, settings: ReplaySettings) -> Candidate:
    """The candidate a session is replayed against under ``settings``."""
    context = conversation_of(session)
    prompt = read_prompt(settings.system) if settings.system is not None else None
    tools_node = parse_json(read_text(settings.tools), settings.tools) if settings.tools is not None else None
    if prompt and not content_text(context.system, "\n").strip() and not settings.allow_new_prompt:
        raise InputError(
            f"the session recorded no system prompt, so all of {settings.system} would be the edit; record the agent "
            "with the prompt it runs with (record --system), or replay it so with --allow-new-prompt "
            "(allow-new-prompt: true)",
            session.path,
        )
    recorded = recorded_agent(context.model, session.path, context.source)
    chosen = settings.agent or recorded
    if isinstance(chosen, ProgramSpec | FunctionSpec):  # the edit is the prompt or the tools: the same agent both sides
        return Candidate(
            system=prompt if prompt is not None else context.system,
            tools=parse_tools(tools_node) if tools_node is not None else context.tools,
            stubs=read_stubs(settings.stubs) if settings.stubs is not None else None,
            agent=chosen,
            baseline_agent=settings.baseline_agent or chosen,
            label=chosen.show(),
            prompt=prompt,
            tools_node=tools_node,
        )
    agent = settings.agent or recorded  # the baseline's agent drives the unchanged runs, never the candidate's
    baseline = settings.baseline_agent or recorded
    if agent is None or (baseline is None and settings.noise):
        raise InputError(
            f"recorded with {context.model}, which is found neither from here nor above the session; "
            "name the agent to replay (--agent, or agent: in a config)",
            session.path,
        )
    return Candidate(
        system=prompt if prompt is not None else context.system,
        tools=parse_tools(tools_node) if tools_node is not None else context.tools,
        stubs=read_stubs(settings.stubs) if settings.stubs is not None else None,
        agent=agent,
        baseline_agent=baseline or ModelSpec(context.model),  # without a baseline, not run
        label=settings.agent.show() if settings.agent is not None else context.model,
        prompt=prompt,
        tools_node=tools_node,
    )


@record
class ReplayOutcome:
    """The candidate's report, and with a baseline the changes tested against it."""

    report: ReplayReport
    noise: NoiseReport | None
    runs: tuple[Run, ...]
    baseline_runs: tuple[Run, ...]


def replay_session(
    session: Session,
    settings: ReplaySettings,
    policy: Policy,
    fail_on: FailOn,
    candidate: Candidate | None = None,
    progress: Progress | None = None,
    redact_off: tuple[str, ...] = (),
    cache: RunCache | None = None,
    user: RunAs | None = None,
    isolate: bool = False,
    keep_runs: Path | None = None,
) -> ReplayOutcome:
    """Run the candidate ``settings.repeat`` times and, with ``settings.noise``, the unchanged configuration too.
    ``redact_off``: the secret shapes a cmd: run's log leaves alone (those the recording was made without);
    ``cache``: where runs are looked up before they are driven (None: ``settings.cache``'s, if it names one);
    ``keep_runs``: where a program's runs that end in no final reply leave their directories (None: removed)."""
    if cache is None and settings.cache is not None:
        from toolreplay.replay.cache import RunCache  # noqa: PLC0415 - only a replay with a cache hashes its runs

        cache = RunCache(settings.cache, settings.cache_days)
    session = renamed_servers(session, settings.server_name)
    chosen = candidate if candidate is not None else load_candidate(session, settings)
    context = conversation_of(session)
    request = dict(context.request or {})  # the recorded request settings, reused unless overridden
    if settings.max_tokens is not None or "max_tokens" not in request:
        request["max_tokens"] = settings.max_tokens or DEFAULT_MAX_TOKENS
    setup = ReplaySetup(
        session,
        chosen.system,
        chosen.tools,
        settings.on_unrecorded,
        chosen.stubs,
        settings.max_turns,
        policy.matcher,
        settings.run_timeout,
        request,
        policy,
    )
    unchanged = replace(setup, system=context.system, tools=context.tools)
    progress = progress if progress is not None else Progress(settings.repeat + settings.noise)
    recorded_classes = Classifier.of(policy, context)
    candidate_classes = Classifier.of(policy, context, chosen.tools)
    # under --fail-on never no round can change the verdict: one round, at the full alpha
    design = Design(settings.alpha, settings.test, 1 if fail_on is FailOn.NEVER else settings.rounds)
    runs: list[Run] = []
    baseline_runs: list[Run] = []
    weighed = None
    workspace = Workspace(redact_off, user, isolate, keep_runs)
    ends = endpoints(chosen, settings)
    ran_on, baseline_label = _sides_shown(chosen, settings, context, ends)
    edited, unchanged_runner, budget = _runners(chosen, settings, workspace, cache, request, ends)
    try:
        for round_ in range(1, (design.rounds if settings.noise else 1) + 1):
            if round_ > 1:
                progress.more(settings.repeat + settings.noise)
            sides = ((edited, setup, runs), (unchanged_runner, unchanged, baseline_runs))
            _drive_round(sides, settings, progress, budget)
            if not settings.noise:
                break
            _enough_answered(runs, "the candidate", settings.min_runs, session)
            _enough_answered(baseline_runs, "the unchanged configuration", settings.min_runs, session)
            if not baseline_runs:  # the budget stopped the replay before any unchanged run: nothing to weigh with
                break
            report = summarize(setup, chosen.label, runs, recorded_classes, candidate_classes, fail_on)
            report = replace(report, ran_on=ran_on[0])
            baseline = summarize(unchanged, baseline_label, baseline_runs, recorded_classes, recorded_classes, fail_on)
            baseline = replace(baseline, ran_on=ran_on[1])
            steps = (settings.repeat, settings.noise)
            weighed = weigh_changes(report, baseline, design, fail_on, round_, steps)
            if weighed.settled or (budget is not None and budget.stopped is not None):
                break
    finally:
        progress.close()
        workspace.close()
    _enough_answered(runs, "the candidate", settings.min_runs, session)
    if weighed is None:
        report = summarize(setup, chosen.label, runs, recorded_classes, candidate_classes, fail_on)
        report = replace(report, ran_on=ran_on[0])
    return _said_stopped(ReplayOutcome(weighed.candidate if weighed else report, weighed, tuple(runs),
                                       tuple(baseline_runs)), budget)  # fmt: skip


def _drive_round(
    sides: tuple[tuple[Runner, ReplaySetup, list[Run]], tuple[Runner, ReplaySetup, list[Run]]],
    settings: ReplaySettings,
    progress: Progress,
    budget: Budget | None,
) -> None:
    """One round's runs of each side, appended to its list: each side whole, one after the other; with a budget,
    the two in turn a block (``concurrency`` runs) at a time, so a budget spent partway leaves runs of both to
    weigh. The seeds and numbers are the same either way, and so are the runs' keys in the run cache."""
    (edited, setup, runs), (unchanged, baseline_setup, baseline_runs) = sides
    wanted = (settings.repeat, settings.noise)
    block = max(1, settings.concurrency) if budget is not None else max(wanted)
    made = [0, 0]
    while made[0] < wanted[0] or made[1] < wanted[1]:
        if made[0] < wanted[0]:
            size = min(block, wanted[0] - made[0])
            first = settings.seed + len(runs)
            runs += edited.runs(setup, range(first, first + size), len(runs) + 1, progress)
            made[0] += size
        if made[1] < wanted[1]:
            size = min(block, wanted[1] - made[1])
            seeds = seeds_for_baseline(settings.seed, size, len(baseline_runs))
            baseline_runs += unchanged.runs(baseline_setup, seeds, len(baseline_runs) + 1, progress)
            made[1] += size
        if budget is not None and budget.stopped is not None:
            return


def _said_stopped(outcome: ReplayOutcome, budget: Budget | None) -> ReplayOutcome:
    """``outcome``, its reports saying why the budget stopped it, when it did."""
    if budget is None or budget.stopped is None:
        return outcome
    report = replace(outcome.report, budget=budget.stopped)
    noise = replace(outcome.noise, candidate=report) if outcome.noise is not None else None
    return replace(outcome, report=report, noise=noise)


def _runners(
    chosen: Candidate,
    settings: ReplaySettings,
    workspace: Workspace,
    cache: RunCache | None,
    request: JSONObject,
    ends: tuple[Endpoint, Endpoint],
) -> tuple[Runner, Runner, Budget | None]:
    """The two sides' runners, each behind the budget, then the cache (a run given back costs nothing); the
    budget they share. A model that cannot run as the recording asks is refused here, before any run."""
    budget = budget_of(settings, chosen)
    sides = ((chosen.agent, "edited"), (chosen.baseline_agent, "unchanged"))
    for (agent, _), endpoint in list(zip(sides, ends, strict=True))[: 2 if settings.noise else 1]:
        if settings.batch and not isinstance(agent, ModelSpec):
            raise UsageError(f"batch: only a model's runs are sent as batches, and {agent.show()} is no model")
        if isinstance(agent, ModelSpec):
            refused = refusal(agent, request, endpoint, settings.batch)
            if refused is not None:
                raise UsageError(f"{agent.show()} is not run: {refused}")
    edited, unchanged = (
        cached(
            budgeted(runner_for(agent, settings, workspace, side, endpoint), agent, settings, budget),
            agent,
            settings,
            cache,
            endpoint,
        )
        for (agent, side), endpoint in zip(sides, ends, strict=True)
    )
    return edited, unchanged, budget


def _sides_shown(
    chosen: Candidate, settings: ReplaySettings, context: SessionContext, ends: tuple[Endpoint, Endpoint]
) -> tuple[tuple[str, str], str]:
    """Where each side's model is asked, in words; what the reports call the unchanged agent (the recorded
    model, unless another is named)."""
    ran_on = (ran_where(chosen.agent, ends[0]), ran_where(chosen.baseline_agent, ends[1]))
    return ran_on, settings.baseline_agent.show() if settings.baseline_agent is not None else context.model


def ran_where(agent: AgentSpec, endpoint: Endpoint) -> str:
    """Where ``agent``'s runs are asked, in words for a report: a model's provider and address; "" for the rest."""
    return provider(agent.provider).where(endpoint) if isinstance(agent, ModelSpec) else ""


def endpoints(candidate: Candidate, settings: ReplaySettings) -> tuple[Endpoint, Endpoint]:
    """Where each side's model is reached: the candidate at ``base-url``; the unchanged agent at
    ``baseline-base-url``, else at ``base-url`` when it is on the candidate's provider (the same server, asked
    with and without the edit), else at its SDK's own default."""
    edited, unchanged = candidate.agent, candidate.baseline_agent
    same = isinstance(edited, ModelSpec) and isinstance(unchanged, ModelSpec) and edited.provider == unchanged.provider
    baseline = settings.baseline_base_url or (settings.base_url if same else None)
    return endpoint_of(settings, settings.base_url), endpoint_of(settings, baseline)


def budget_of(settings: ReplaySettings, candidate: Candidate) -> Budget | None:
    """The replay's budget, if it has one; a dollar budget for a model whose price is unknown is refused here,
    before any run."""
    if settings.max_cost is None and settings.max_tokens_total is None:
        return None
    from toolreplay.replay.budget import Budget, price_for  # noqa: PLC0415 - only a replay with a budget

    for agent in {candidate.agent, candidate.baseline_agent} if settings.noise else {candidate.agent}:
        price_for(agent, settings.max_cost, settings.prices)
    return Budget(settings.max_cost, settings.max_tokens_total)


def budgeted(runner: Runner, agent: AgentSpec, settings: ReplaySettings, budget: Budget | None) -> Runner:
    """``runner``, starting runs only while ``budget`` allows (as it is, without one)."""
    if budget is None:
        return runner
    from toolreplay.replay.budget import BudgetedRunner  # noqa: PLC0415 - as above
    from toolreplay.replay.prices import price_of  # noqa: PLC0415 - as above

    price = price_of(agent, settings.prices) if isinstance(agent, ModelSpec) else None  # as budget_of checks
    return BudgetedRunner(runner, budget, price, settings.concurrency)


def cached(
    runner: Runner, agent: AgentSpec, settings: ReplaySettings, cache: RunCache | None, endpoint: Endpoint
) -> Runner:
    """``runner``, its runs looked up in ``cache`` first (as they are, without one)."""
    if cache is None:
        return runner
    from toolreplay.replay.cache import CachedRunner, agent_identity, program_files  # noqa: PLC0415 - as above

    here = os.getcwd()
    identity = agent_identity(
        agent, here, settings.mcp_transport.value, settings.cache_key, settings.cache_files, endpoint
    )
    if isinstance(agent, ProgramSpec):  # which files the key covers, said with what the cache did
        cache.covered.update(dict.fromkeys(program_files(agent, here, settings.cache_files)))
    return CachedRunner(runner, cache, identity)


def _enough_answered(runs: Sequence[Run], who: str, least: int, session: Session) -> None:
    """Runs that ended in an error are no evidence; with fewer answered than ``least``, the replay could not run."""
    answered = sum(run.answered for run in runs)
    if not runs or answered >= least:
        return
    error = next((run.error for run in runs if not run.answered), None)
    if not answered:
        raise ToolreplayError(f"every run of {who} ended in an error, so nothing was replayed: {error}", session.path)
    raise ToolreplayError(
        f"only {answered} of {count(len(runs), 'run')} of {who} {agree(answered, 'was', 'were')} answered, "
        f"fewer than --min-runs {least}; "
        f"the others ended in an error: {error}",
        session.path,
    )
