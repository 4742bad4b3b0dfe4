"""``policies suggest``: a starter policy file from recorded sessions, checked to load before it is written."""

from __future__ import annotations

import os
import tomllib

import tomli_w

from toolreplay.analysis.suggest_policies import suggested_policies
from toolreplay.commands.base import Emitter, load_policy
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.files import guard_outputs, write_new
from toolreplay.core.records import record
from toolreplay.core.verdict import Exit
from toolreplay.core.wording import count
from toolreplay.formats.policies import parse_policies
from toolreplay.formats.recording import load_session


@record
class SuggestRequest:
    sessions: tuple[str, ...]
    output: str
    rules: str | None = None
    strict: bool = False


def suggest(request: SuggestRequest, emitter: Emitter) -> Exit:
    output = request.output
    guard_outputs({"-o": output}, [*request.sessions, *([request.rules] if request.rules else [])])
    if os.path.lexists(output):  # a policy file is the user's own work: never written over
        raise UsageError(f"-o {output} exists; policies suggest writes a new file (remove it, or name another)")
    policy = load_policy(request.rules, request.strict)
    loaded = [load_session(path) for path in request.sessions]
    tables, support = suggested_policies(loaded, policy)
    header = [
        f"Policies every one of {count(len(loaded), 'recorded run')} keeps, written by toolreplay policies suggest.",
        "Each held in every run; keep the ones that state what the agent must do, drop the rest.",
        "Then give the file to audit, replay and compare with --policies, or to check as 'policies:'.",
    ]
    parts = ["".join(f"# {line}\n" for line in header)]
    for stated, said in zip(tables, support, strict=True):
        parts.append(f"\n# {said}\n" + tomli_w.dumps({"policy": [stated]}))
    text = "".join(parts)
    try:  # checked before writing: the comments hold nothing TOML reads, and the text loads as policies
        read = parse_policies(text, output)
        same = tomllib.loads(text).get("policy", []) == tables
    except InputError as exc:
        raise UsageError(f"the suggested policies would not load ({exc.message}); please report this") from None
    if not same:
        raise UsageError("the suggested policies would not read back as made; please report this")
    write_new(output, [text.encode("utf-8")])  # and never over one made meanwhile
    emitter.say(f"wrote {output}: {count(len(read.policies), 'policy', 'policies')} from {count(len(loaded), 'run')}\n")
    return Exit.CLEAN
