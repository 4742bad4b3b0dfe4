"""toolreplay from Python: the commands as functions, each returning the typed outcome its reports are drawn from.

``replay``, ``compare``, ``diff`` and ``check`` run what the command of the same name runs, through the same request
and the same :class:`~toolreplay.settings.ReplaySettings`: a keyword argument is named as the option is
(``on_unrecorded`` for ``--on-unrecorded``) and means what it means there, a path where the option takes one. What
the command line refuses with one line and exit 2, they raise as :class:`~toolreplay.core.errors.ToolreplayError`
with the same words. Each returns a :class:`Result`: its verdict and exit code, the outcome, and every report the
command can write (:meth:`Result.render`), so the JSON a test reads is the JSON the command prints.
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from toolreplay.commands.base import Emitter
from toolreplay.core.errors import UsageError
from toolreplay.core.files import repository_root
from toolreplay.core.verdict import FailOn, Verdict
from toolreplay.settings import SETTINGS, ReplaySettings, SettingError, parse_value, setting_key

if TYPE_CHECKING:
    from toolreplay.agent_spec import AgentSpec
    from toolreplay.core.model import Session
    from toolreplay.core.outcome import CheckReport
    from toolreplay.replay.drive import ReplayOutcome
    from toolreplay.replay.engine import Run

PathLike = str | os.PathLike[str]


class _Kept(Emitter):
    """An emitter that keeps what a command hands over: the outcome its text is drawn from, the whole report, and
    the runs."""

    def __init__(self, root: Path, reports: bool = True) -> None:
        self._reports = reports
        self.shown: list[object] = []
        self.report_made: CheckReport | None = None
        self.outcome: object = None
        self.notes: list[str] = []
        self._root = root

    def show(self, outcome: object) -> None:
        self.shown.append(outcome)

    @property
    def wants_reports(self) -> bool:
        return self._reports

    @property
    def wants_runs(self) -> bool:
        return self._reports

    @property
    def root(self) -> Path:
        return self._root

    def write(self, report: CheckReport) -> None:
        self.report_made = report

    def report(self, report: CheckReport, root: Path | None = None) -> None:
        self.report_made = report
        self.shown.append(report)

    def runs(self, outcome: object) -> None:
        self.outcome = outcome

    def note(self, text: str) -> None:
        self.notes.append(text)

    def warn(self, text: str) -> None:
        self.notes.append(text)


@dataclass(frozen=True)
class Result:
    """What a command found: its exit code (0 clean, 1 findings), the outcome its text and JSON are drawn from, and
    the whole report its markdown, SARIF, HTML and annotations are."""

    exit_code: int
    outcome: object
    report: CheckReport | None = None
    notes: tuple[str, ...] = ()  # what the command said on stderr beside its report

    @property
    def passed(self) -> bool:
        """No finding fails it (a WARN passes)."""
        return self.exit_code == 0

    @property
    def verdict(self) -> Verdict:
        verdict = getattr(self.outcome, "verdict", None)
        if isinstance(verdict, Verdict):
            return verdict
        report = getattr(self.outcome, "report", None)
        inner = getattr(report, "verdict", None)
        if isinstance(inner, Verdict):
            return inner
        return Verdict.FAIL if self.exit_code else Verdict.PASS

    @property
    def text(self) -> str:
        """The report the command prints."""
        return self.render("text")

    def formats(self) -> tuple[str, ...]:
        """The formats :meth:`render` writes this result in."""
        from toolreplay.report.registry import formats  # noqa: PLC0415

        own = formats(type(self.outcome))
        whole = formats(type(self.report)) if self.report is not None else ()
        return tuple(dict.fromkeys((*own, *whole)))

    def render(self, format: str = "text") -> str:
        """The report in ``format``: ``text`` and ``json`` as the command prints them, ``markdown``, ``sarif``,
        ``html`` and ``annotations`` as it writes them."""
        from toolreplay.report.registry import formats, render  # noqa: PLC0415

        if format in formats(type(self.outcome)):
            return render(format, self.outcome)
        if self.report is not None and format in formats(type(self.report)):
            return render(format, self.report)
        raise ValueError(f"no {format} report of this result; it has {', '.join(self.formats())}")

    def json(self) -> Any:
        """The JSON report, parsed."""
        return json.loads(self.render("json"))

    def assert_passes(self) -> None:
        """Fail (AssertionError, with the report's text) unless the result passes its gate."""
        __tracebackhide__ = True
        if not self.passed:
            raise AssertionError(self.text)

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class ReplayResult(Result):
    """A replay: its runs with the edit and, with a noise baseline, without it."""

    runs: tuple[Run, ...] = ()
    baseline_runs: tuple[Run, ...] = field(default=())

    def assert_no_destructive(self) -> None:
        """Fail (AssertionError, with the report's text) when the edit makes a destructive call: with a noise
        baseline, one shown to be more frequent with the edit; without one, any the recording did not make."""
        __tracebackhide__ = True  # pytest shows the test's line, then this message
        from toolreplay.core.findings import Rule  # noqa: PLC0415

        outcome: Any = self.outcome
        if Rule.DESTRUCTIVE_CALL in set(outcome.report.rules()):
            raise AssertionError(self.text)


@dataclass(frozen=True)
class Live:
    """How a recording is made live, where the pytest plugin's record mode asks: the agent's real servers (by name:
    a command, or a URL), the task, the file of the system prompt it runs with unchanged, and the agent (default:
    the replay's)."""

    servers: Mapping[str, str | Sequence[str]]
    task: str
    system: str | os.PathLike[str] | None = None
    agent: str | None = None
    seed: int = 1
    model: str = "unknown"


def _value(name: str, value: object) -> object:
    """One setting as given in Python: its text parsed as the option's, a typed value checked by the record."""
    if name not in SETTINGS:
        raise UsageError(f"no setting {name!r}; the settings are {', '.join(SETTINGS)}")
    if isinstance(value, bool):
        return parse_value(name, "true" if value else "false")
    if isinstance(value, os.PathLike):
        return parse_value(name, os.fspath(value))
    if isinstance(value, enum.Enum):
        return parse_value(name, str(value.value))
    if isinstance(value, int | float | str):
        return parse_value(name, str(value))
    if name == "env" and isinstance(value, Iterable) and not isinstance(value, Mapping):
        return parse_value(name, ",".join(str(item) for item in value))
    if name in ("agent", "baseline_agent"):
        from toolreplay.agent_spec import FunctionSpec, ModelSpec, ProgramSpec, ScriptSpec  # noqa: PLC0415

        if isinstance(value, ModelSpec | ScriptSpec | ProgramSpec | FunctionSpec):
            return value
    if name == "prices" and isinstance(value, tuple):
        return value
    raise UsageError(f"{name} must be {'a path or ' if name in _PATH_SETTINGS else ''}text, not {value!r}")


_PATH_SETTINGS = ("system", "tools", "stubs", "task_file", "cache")


def settings(**given: object) -> ReplaySettings:
    """A replay's settings, by the options' names (``on_unrecorded="stub"``, ``repeat=20``); a refused value is a
    :class:`~toolreplay.core.errors.UsageError` in the option's words."""
    try:
        values = {name: _value(name, value) for name, value in given.items() if value is not None}
        return ReplaySettings(**values)  # type: ignore[arg-type]
    except SettingError as exc:
        raise UsageError(f"{setting_key(exc.key).replace('-', '_')} {exc.problem}") from None


def _fail_on(value: FailOn | str) -> FailOn:
    try:
        return value if isinstance(value, FailOn) else FailOn(value)
    except ValueError:
        choices = ", ".join(choice.value for choice in FailOn)
        raise UsageError(f"fail_on must be one of {choices}, not {value!r}") from None


def _path(value: PathLike | None, name: str = "rules") -> str | None:
    return None if value is None else _path_of(name, value)


def _path_of(name: str, value: object) -> str:
    """A path given as text or a path object, else a refusal in one line."""
    if not isinstance(value, str | os.PathLike):
        raise UsageError(f"{name} must be a path (a str or a Path), not {value!r}")
    return os.fspath(value)


def replay(
    recording: PathLike,
    *,
    fail_on: FailOn | str = FailOn.DESTRUCTIVE,
    rules: PathLike | None = None,
    strict: bool = False,
    no_cache: bool = False,
    policies: PathLike | None = None,
    **options: object,
) -> ReplayResult:
    """``toolreplay replay RECORDING``: the session against a candidate (``agent``, ``system``, ``tools``, ...),
    ``repeat`` runs, and ``noise`` runs of the unchanged agent to weigh each change against. The options are the
    command's, by name (:func:`settings`)."""
    from toolreplay.commands.replay import ReplayRequest, execute  # noqa: PLC0415
    from toolreplay.formats.kinds import Kind, detect_kind  # noqa: PLC0415

    _typed("strict", strict, bool)
    _typed("no_cache", no_cache, bool)
    chosen = settings(**options)
    request = ReplayRequest(
        _path_of("recording", recording), chosen, _fail_on(fail_on), _path(rules), strict, no_cache,
        policies=_path(policies, "policies"),
    )  # fmt: skip
    audited = detect_kind(request.recording, logs=True) in (Kind.TRANSCRIPT, Kind.SEALED_TRANSCRIPT)
    kept = _Kept(repository_root("."), reports=not audited)
    code = execute(request, kept)
    if not kept.shown:
        raise UsageError(f"{recording}: nothing was replayed")
    made: ReplayOutcome | None = kept.outcome  # type: ignore[assignment]
    if made is None:  # a transcript: its self-audit, as replay prints it
        return ReplayResult(int(code), kept.shown[-1], kept.report_made, tuple(kept.notes))
    return ReplayResult(int(code), kept.shown[-1], kept.report_made, tuple(kept.notes), made.runs, made.baseline_runs)


def compare(
    recorded: PathLike,
    candidates: Iterable[PathLike],
    baselines: Iterable[PathLike],
    *,
    fail_on: FailOn | str = FailOn.DESTRUCTIVE,
    rules: PathLike | None = None,
    strict: bool = False,
    alpha: float | None = None,
    test: str | None = None,
    policies: PathLike | None = None,
) -> Result:
    """``toolreplay compare RECORDED --candidates ... --baseline ...``: sessions already recorded with and without
    the edit, each behaviour tested against the unchanged ones."""
    from toolreplay.commands.compare import CompareRequest, execute  # noqa: PLC0415
    from toolreplay.stats.design import Design  # noqa: PLC0415

    chosen = settings(alpha=alpha, test=test)
    design = Design(alpha=chosen.alpha, test=chosen.test)
    request = CompareRequest(
        _path_of("recorded", recorded),
        tuple(_path_of("candidates", path) for path in candidates),
        tuple(_path_of("baselines", path) for path in baselines),
        design,
        _fail_on(fail_on),
        _path(rules),
        strict,
        _path(policies, "policies"),
    )
    kept = _Kept(repository_root("."))
    code = execute(request, kept)
    return Result(int(code), kept.shown[-1], kept.report_made, tuple(kept.notes))


def diff(
    a: PathLike, b: PathLike, *, fail_on: FailOn | str = FailOn.DESTRUCTIVE, rules: PathLike | None = None,
    strict: bool = False, policies: PathLike | None = None,
) -> Result:  # fmt: skip
    """``toolreplay diff A B``: what recording B did that A did not, call by call."""
    from toolreplay.commands.diff import DiffRequest, execute  # noqa: PLC0415

    request = DiffRequest(
        _path_of("a", a), _path_of("b", b), _fail_on(fail_on), _path(rules), strict, _path(policies, "policies")
    )
    kept = _Kept(repository_root("."))
    code = execute(request, kept)
    return Result(int(code), kept.shown[-1], kept.report_made, tuple(kept.notes))


def check(
    config: PathLike | None = None,
    *,
    root: PathLike | None = None,
    fail_on: FailOn | str | None = None,
    base: str | None = None,
    policy: str = "base",
    cache: PathLike | None = None,
    no_cache: bool = False,
    isolate: bool = False,
    no_code: bool = False,
    shard: str | None = None,
) -> Result:
    """``toolreplay check``: every analysis a config names (default: ``.toolreplay.yml`` here)."""
    from toolreplay.commands.check import CheckRequest, execute  # noqa: PLC0415

    request = CheckRequest(
        config_file=_path(config, "config"),
        root=_path(root, "root"),
        shard=shard,
        fail_on=_fail_on(fail_on) if fail_on is not None else None,
        base=base,
        policy=policy,
        isolate=isolate,
        cache=_path(cache, "cache"),
        no_cache=no_cache,
        no_code=no_code,
    )
    kept = _Kept(Path(request.root).resolve() if request.root else repository_root("."))
    code = execute(request, kept)
    if kept.report_made is None:
        raise UsageError("the check made no report")
    return Result(int(code), kept.report_made, kept.report_made, tuple(kept.notes))


def load(path: PathLike) -> Session:
    """A recording, whatever its format (a session, a transcript, a sealed one, a proxy log, an import): its calls,
    and a session's conversation."""
    from toolreplay.formats.kinds import detect_kind  # noqa: PLC0415
    from toolreplay.formats.recording import load_session  # noqa: PLC0415

    name = os.fspath(path)
    return load_session(name, detect_kind(name, logs=True))


def record(
    output: PathLike,
    *,
    agent: str,
    servers: Mapping[str, str | Sequence[str]],
    task: str,
    system: PathLike | None = None,
    runs: int = 1,
    seed: int | None = None,
    model: str = "unknown",
    run_timeout: float = 1800.0,
) -> list[Path]:
    """``toolreplay record``: the agent (``cmd:COMMAND`` or ``python:MODULE:FUNCTION``) run live against its real
    servers (by name: a command, as words or one string split as a shell splits it, or a URL), ``runs`` times; one
    session per run in the directory ``output``, numbered on from those there. The sessions' paths, in order."""
    from toolreplay.settings import TIMEOUTS  # noqa: PLC0415

    _typed("agent", agent, str)
    _typed("task", task, str)
    _typed("servers", servers, Mapping)
    _typed("runs", runs, int)
    if not 1 <= runs <= MAX_RECORDED_RUNS:
        raise UsageError(f"runs must be between 1 and {MAX_RECORDED_RUNS}, not {runs}")
    if seed is not None:
        _typed("seed", seed, int)
    low, high = TIMEOUTS["run_timeout"]
    _typed("run_timeout", run_timeout, int | float)
    if not low <= run_timeout <= high:
        raise UsageError(f"run_timeout must be between {low:g} and {high:g} seconds, not {run_timeout:g}")
    chosen = (agent, servers, task, system, seed, model, run_timeout)
    return _recorded(output, *chosen, runs=runs)


MAX_RECORDED_RUNS = 1000  # as record --runs


def _typed(name: str, value: object, kind: Any) -> None:
    """A keyword of the API's own of the type it takes (a bool is no number), else a refusal in one line."""
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise UsageError(f"{name} must be {_KINDS.get(kind, getattr(kind, '__name__', str(kind)))}, not {value!r}")


_KINDS: dict[object, str] = {str: "text (a str)", int: "a whole number", bool: "True or False", Mapping: "a dict"}


def _recorded(
    output: PathLike,
    agent: str | AgentSpec,
    servers: Mapping[str, str | Sequence[str]],
    task: str,
    system: PathLike | None,
    seed: int | None,
    model: str,
    run_timeout: float,
    runs: int = 1,
    placed: Path | None = None,
) -> list[Path]:
    """:func:`record`, its one session's paths (``source.here``) written from ``placed``, where it will be moved."""
    import shlex  # noqa: PLC0415

    from toolreplay.agent_spec import AgentSpecError, FunctionSpec, ProgramSpec, parse_agent  # noqa: PLC0415
    from toolreplay.agents.spec import read_prompt  # noqa: PLC0415
    from toolreplay.redact import Redactor  # noqa: PLC0415

    try:
        spec = parse_agent(agent) if isinstance(agent, str) else agent
    except AgentSpecError as exc:
        raise UsageError(f"agent {exc.problem}") from None
    if not isinstance(spec, ProgramSpec | FunctionSpec):
        raise UsageError("agent: record runs a program (cmd:COMMAND) or a function (python:MODULE:FUNCTION)")
    if not servers:
        raise UsageError("servers: name at least one real server to record against")
    from toolreplay.record.programs import LiveRuns, LiveServer, driven, next_number, record_runs  # noqa: PLC0415

    live = []
    for name, command in servers.items():
        if isinstance(command, str) and command.startswith(("http://", "https://")):
            live.append(LiveServer(name, (), command))
            continue
        words = tuple(shlex.split(command)) if isinstance(command, str) else tuple(command)
        if not words:
            raise UsageError(f"servers: {name} needs a command")
        live.append(LiveServer(name, words))
    root = Path(output).absolute()
    if root.exists() and not root.is_dir():
        raise UsageError(f"{output}: not a directory")
    here = spec.home if isinstance(spec, FunctionSpec) and spec.home else os.getcwd()
    words, function = driven(spec, here)
    prompt = read_prompt(os.fspath(system)) if system is not None else ""
    made = LiveRuns(
        words, tuple(live), task, prompt, model, root, run_timeout, here, Redactor.default(), spec.show(),
        function=function, placed=placed,
    )  # fmt: skip
    first = next_number(root)
    root.mkdir(parents=True, exist_ok=True)
    numbered = [(first + n, (seed if seed is not None else first) + n) for n in range(runs)]
    try:
        recorded = record_runs(made, numbered, lambda _: None)
    finally:
        if function is not None:
            function.close()
    failed = next((run for run in recorded if run.session is None), None)
    if failed is not None:
        said = "; ".join(failed.said[-3:])
        raise UsageError(f"run {failed.number}: {failed.ending}; no session" + (f" ({said})" if said else ""))
    return [run.session for run in recorded if run.session is not None]
