"""``tools diff``, ``tools lint`` and ``tools pin``: tool surfaces read from files or asked of a server now, compared,
linted and pinned."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolreplay.commands.base import Emitter
from toolreplay.core.errors import UsageError
from toolreplay.core.findings import Gate, Rule, gated
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit
from toolreplay.core.wording import count
from toolreplay.results.tools import LintShown, SurfaceChanges

if TYPE_CHECKING:
    from toolreplay.surface.judge import JudgeVerdict
    from toolreplay.surface.model import Surface


@record
class Reach:
    """How a server is asked now: ``--live`` (its command, over stdio) or ``--live-url``; the name its tools' server
    is given."""

    live: bool = False
    url: str | None = None
    name: str = ""


@record
class ToolsDiffRequest:
    old: str
    rest: tuple[str, ...]  # NEW, or with --live the server's command
    server: str | None = None  # one server of each side
    reach: Reach = Reach()


@record
class ToolsLintRequest:
    sources: tuple[str, ...]  # or with --live the server's command
    reach: Reach = Reach()
    judge: str | None = None  # the model that judges each text the rules let pass
    judge_url: str | None = None  # where it is asked (None: its SDK's own address)
    judge_cache: str | None = None  # where its verdicts are kept


def diff(request: ToolsDiffRequest, emitter: Emitter) -> Exit:
    from toolreplay.surface.drift import diff_surfaces  # noqa: PLC0415
    from toolreplay.surface.sources import read_surface  # noqa: PLC0415

    only, rest, reach = request.server, request.rest, request.reach
    if only is not None and not only:
        raise UsageError("--server must name a server, not an empty string")
    asked = _live(reach.live, reach.url, list(rest), reach.name or only or "")
    if asked is None and len(rest) != 1:
        raise UsageError(f"give OLD and NEW (or --live -- SERVER...), not {count(len(rest) + 1, 'source')}")
    before = read_surface(request.old)
    after = asked if asked is not None else read_surface(rest[0])
    if only is not None:
        before, after = _one_server(before, only, request.old), _one_server(after, only, after.source)
    changes = diff_surfaces(before, after)
    emitter.show(SurfaceChanges(request.old, after.source, len(before.tools), len(after.tools), tuple(changes)))
    return gated(((Rule.TOOL_CHANGED, c.level) for c in changes), Gate.AN_ERROR).exit_code


@record
class ToolsPinRequest:
    sources: tuple[str, ...]  # or with --live the server's command
    output: str
    reach: Reach = Reach()
    judge: str | None = None  # the model whose verdicts the lock keeps
    judge_url: str | None = None


def _together(surfaces: list[Surface]) -> Surface:
    """One surface of them all, so a server's text that names another source's server's tool is found."""
    from toolreplay.surface.model import Surface  # noqa: PLC0415

    return Surface(
        "",
        tuple(t for s in surfaces for t in s.tools),
        tuple(i for s in surfaces for i in s.instructions),
        tuple(x for s in surfaces for x in s.listed),
    )


def _locks_verdicts(paths: tuple[str, ...]) -> dict[str, JudgeVerdict]:
    """The judge's verdicts the locks among ``paths`` keep (a path that is no lock keeps none)."""
    from pathlib import Path  # noqa: PLC0415

    from toolreplay.surface.lock import read_lock  # noqa: PLC0415

    known: dict[str, JudgeVerdict] = {}
    for path in paths:
        if path.endswith(".lock") and Path(path).is_file():
            known.update(read_lock(path).verdicts or {})
    return known


def lint(request: ToolsLintRequest, emitter: Emitter) -> Exit:
    from toolreplay.surface.lint import lint_surface  # noqa: PLC0415

    surfaces = surfaces_of(request.sources, request.reach)
    together = _together(surfaces)
    judge = None
    if request.judge is not None:
        from toolreplay.surface.judge import model_judge  # noqa: PLC0415 - only a lint with a judge asks a model

        known = {} if request.reach.live or request.reach.url else _locks_verdicts(request.sources)
        judge = model_judge(request.judge, request.judge_url, request.judge_cache, known)
    found = lint_surface(together, judge)
    if judge is not None:
        judge.save()
        emitter.note(
            f"judged {judge.asked} text{'s' if judge.asked != 1 else ''} with {judge.model}"
            + (f"; verdicts kept in {request.judge_cache}" if request.judge_cache else "")
        )
    emitter.show(LintShown(tuple(found)))
    return gated(((Rule.TOOL_TEXT, Rule.TOOL_TEXT.level) for _ in found), Gate.ANY_FINDING).exit_code


def pin(request: ToolsPinRequest, emitter: Emitter) -> int:
    """Write the lock of every source's tools, instructions and listed items, with the judge's verdicts where
    asked (those the lock at the output already keeps reused, the rest asked); how many tools it pins."""
    from toolreplay.core.errors import InputError  # noqa: PLC0415
    from toolreplay.core.files import write_atomic  # noqa: PLC0415
    from toolreplay.surface.lock import write_lock  # noqa: PLC0415

    surfaces = surfaces_of(request.sources, request.reach)
    verdicts = None
    if request.judge is not None:
        from toolreplay.surface.judge import model_judge  # noqa: PLC0415 - only a pin with a judge asks a model
        from toolreplay.surface.lint import lint_surface  # noqa: PLC0415

        try:
            known = _locks_verdicts((request.output,))
        except InputError:
            known = {}  # the output is written over; what it held is no verdict to trust
        judge = model_judge(request.judge, request.judge_url, None, known)
        lint_surface(_together(surfaces), judge)
        verdicts = judge.used
        suspect = sum(v.verdict == "suspect" for v in verdicts.values())
        emitter.note(
            f"judged {count(len(verdicts) + judge.failed, 'text')} with {judge.model}: {judge.asked} asked, "
            f"{suspect} suspect"
            + (f", {judge.failed} not judged (the judge failed; asked again at the next pin)" if judge.failed else "")
        )
    data, pinned = write_lock(surfaces, verdicts)
    write_atomic(request.output, [data])
    return pinned


def _live(live: bool, url: str | None, command: list[str], name: str) -> Surface | None:
    """The live surface the options ask for, or None."""
    if live and url is not None:
        raise UsageError("--live and --live-url: give one way to reach the server")
    if not live and url is None:
        return None
    if live and not command:
        raise UsageError("--live needs the server's command after --")
    if url is not None and command:
        raise UsageError(f"--live-url takes no command; {command[0]!r} is one too many")
    from toolreplay.surface.live import live_surface  # noqa: PLC0415 - only a live surface starts a server

    return live_surface(command, url, name)


def surfaces_of(sources: tuple[str, ...], reach: Reach) -> list[Surface]:
    """The files' surfaces, or the live one (the arguments then the server's command)."""
    from toolreplay.surface.sources import read_surface  # noqa: PLC0415

    asked = _live(reach.live, reach.url, list(sources) if reach.live else [], reach.name)
    if asked is not None:
        return [asked]
    return [read_surface(source) for source in sources]


def _one_server(surface: Surface, name: str, shown: str) -> Surface:
    """The tools and instructions of one server of a surface; a source without that server is refused."""
    from toolreplay.surface.model import Surface  # noqa: PLC0415

    tools = tuple(tool for tool in surface.tools if tool.server == name)
    if not tools:
        servers = sorted({tool.server for tool in surface.tools} - {""})
        held = f"its servers: {', '.join(servers)}" if servers else "it names no server"
        raise UsageError(f"--server {name}: {shown} lists no tool of that server ({held})")
    said = tuple(item for item in surface.instructions if item.server == name)
    return Surface(surface.source, tools, said, tuple(item for item in surface.listed if item.server == name))
