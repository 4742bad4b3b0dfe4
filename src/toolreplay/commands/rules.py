"""``rules init``: a starter rules file from recorded sessions, checked to load before it is written."""

from __future__ import annotations

import os
import tomllib

import tomli_w

from toolreplay.analysis.rules_init import starter_rules
from toolreplay.commands.base import Emitter
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.files import guard_outputs, write_new
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit
from toolreplay.core.wording import count
from toolreplay.formats.recording import load_session
from toolreplay.formats.rules import parse_rules


@record
class RulesInitRequest:
    sessions: tuple[str, ...]
    output: str


def init(request: RulesInitRequest, emitter: Emitter) -> Exit:
    output = request.output
    guard_outputs({"-o": output}, list(request.sessions))
    if os.path.lexists(output):  # a rules file is the user's own work: never written over
        raise UsageError(f"-o {output} exists; rules init writes a new file (remove it, or name another)")
    loaded = [load_session(path) for path in request.sessions]
    document, header = starter_rules(loaded)
    text = "".join(f"# {line}\n" for line in header) + "\n" + tomli_w.dumps(document)
    try:  # checked before writing: the comments hold nothing TOML reads, and the text loads as rules
        policy = parse_rules(text, output)
        same = tomllib.loads(text) == document
    except InputError as exc:
        raise UsageError(f"the starter rules would not load ({exc.message}); please report this") from None
    if not same:
        raise UsageError("the starter rules would not read back as generated; please report this")
    write_new(output, [text.encode("utf-8")])  # and never over one made meanwhile
    emitter.say(
        f"wrote {output}: {count(len(policy.rules), 'rule')} for the tools of {count(len(loaded), 'session')}\n"
    )
    return Exit.CLEAN
