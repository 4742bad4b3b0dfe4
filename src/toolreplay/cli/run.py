"""``toolreplay run``: drive an agent whose tools really execute, and record the session."""

from __future__ import annotations

import click

from toolreplay.agent_spec import ScriptSpec
from toolreplay.agents.providers.base import endpoint_of
from toolreplay.agents.scripted import ScriptedAgent
from toolreplay.agents.spec import agent_in_process, make_agent, read_prompt
from toolreplay.cli.options import redaction_options, settings_options
from toolreplay.cli.output import session_text, write_text
from toolreplay.core.canonical import JSONObject, json_utf8
from toolreplay.core.errors import InputError, UsageError
from toolreplay.core.files import guard_outputs, write_atomic
from toolreplay.core.model import Session, SessionContext
from toolreplay.core.wording import count
from toolreplay.record.run import load_toolbox, run_agent
from toolreplay.redact import Redactor
from toolreplay.settings import DEFAULT_MAX_TOKENS, ReplaySettings


@click.command(
    "run",
    help="""Run an agent with the tools in TOOLS and record what it did to a session file.

    TOOLS is a Python file defining TOOLS (tool definitions: name, description,
    input_schema, and optional MCP annotations) and execute(name, args), which
    really runs a call and returns its result. The agent is a model (--agent
    MODEL_ID for Claude, needing the anthropic extra and ANTHROPIC_API_KEY, or
    PROVIDER/MODEL: openai/, bedrock/, vertex/; docs/agents.md) or a scripted
    policy (--agent scripted:FILE, seeded with --seed). The session is
    written after every exchange, atomically, with secrets redacted.
    """,
)
@click.argument("tools_file", metavar="TOOLS")
@click.option(
    "--agent",
    "--model",
    "agent",
    required=True,
    metavar="SPEC",
    help="A model (a Claude id, or PROVIDER/MODEL), or scripted:FILE.",
)
@click.option("--system", "system_file", metavar="FILE", help="The system prompt, from a file.")
@click.option("--task", metavar="TEXT", help="The person's first message.")
@click.option("--task-file", metavar="FILE", help="The person's first message, from a file.")
@click.option(
    "--then",
    "later",
    multiple=True,
    metavar="TEXT",
    help="What the person says next, once the agent has replied (repeat for each later turn).",
)
@click.option("-o", "--output", required=True, metavar="SESSION", help="The session file to write.")
@settings_options("seed", "max_turns", "max_tokens", "base_url", "api", "request_timeout")
@redaction_options("write")
def command(
    tools_file: str,
    agent: str,
    system_file: str | None,
    task: str | None,
    task_file: str | None,
    later: tuple[str, ...],
    output: str,
    settings: ReplaySettings,
    redactor: Redactor,
) -> int:
    if (task is None) == (task_file is None):
        raise UsageError("give the task with exactly one of --task and --task-file")
    if any(not said.strip() for said in later):
        raise UsageError("--then needs words: an empty message is not one a model accepts")
    prompt = task if task is not None else read_prompt(str(task_file))
    system = read_prompt(system_file) if system_file else ""
    spec = agent_in_process(agent)
    script = spec.path if isinstance(spec, ScriptSpec) else None
    guard_outputs({"-o": output}, [tools_file, system_file, task_file, script])
    toolbox = load_toolbox(tools_file)
    request: JSONObject = {"max_tokens": settings.max_tokens or DEFAULT_MAX_TOKENS}
    driver = make_agent(spec, settings.seed, request, endpoint_of(settings, settings.base_url))
    source: JSONObject = {"kind": "run", "tools": tools_file}
    if isinstance(driver, ScriptedAgent):
        source["seed"] = settings.seed

    written: list[Session] = []

    def write(context: SessionContext) -> None:  # each version read back before it replaces the one before
        try:
            text, session = session_text(context, redactor, output)
        except InputError as exc:
            raise UsageError(f"the run's session would not load ({exc.message}), so {output} was not written") from None
        write_atomic(output, [json_utf8(text)])
        written[:] = [session]

    done = run_agent(driver, system, toolbox, (prompt, *later), source, write, settings.max_turns)
    ending = (
        "" if done.final_reply is not None else f" (stopped after {count(settings.max_turns, 'turn')}, no final reply)"
    )
    write_text(f"wrote {output}: {count(len(written[0].calls), 'tool call')}{ending}\n")
    return 0
