"""What a command's report is drawn from, where its analysis's result alone is not all the report says: a replay
with the prompt and tools it was given, a signature with the file it is in, an audit of one of several files (a
tool surface's changes are in :mod:`.tools`, what ``show`` prints in :mod:`.show`). Each is one outcome the registry
(:mod:`toolreplay.report.registry`) renders."""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolreplay.core.records import record

if TYPE_CHECKING:  # records only: each command loads just the analysis it runs
    from toolreplay.analysis.audit import AuditReport
    from toolreplay.integrity.signing import SignatureCheck
    from toolreplay.replay.noise import NoiseReport
    from toolreplay.replay.report import ReplayReport
    from toolreplay.surface.drift import Drift


@record
class ReplayShown:
    """A replay without a noise baseline, with the prompt and tools files given (None: the recorded ones) and how
    the tools given differ from the recorded ones."""

    report: ReplayReport
    system: str | None
    tools: str | None
    given: tuple[Drift, ...] = ()


@record
class NoiseShown:
    """A replay with a noise baseline, or (``command`` compare) a comparison of recorded sessions, with the line that
    names what was compared."""

    report: NoiseReport
    system: str | None
    tools: str | None
    given: tuple[Drift, ...] = ()
    candidate_line: str | None = None
    command: str = "replay"


@record
class FileAudit:
    """One file's audit, the ``number``-th (from 0) of ``total`` given: of several, each is headed by its file."""

    path: str
    report: AuditReport
    number: int = 0
    total: int = 1


@record
class SignatureShown:
    """A signature's check (None: there is no signature) and the file it was read from."""

    checked: SignatureCheck | None
    path: str
