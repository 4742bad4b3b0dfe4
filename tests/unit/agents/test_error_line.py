"""Why a failed run failed, in one line from its stderr: the line that names the error, not what came after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolreplay.agents.program import error_line

FRAMEWORK = """\
Traceback (most recent call last):
  File "agent.py", line 40, in <module>
    asyncio.run(main())
  File "agent.py", line 12, in main
    await client.connect()
httpx.ConnectError: [Errno 111] Connection refused
| During task with name 'agent' and id 'a1f0'
"""
GROUP = """\
  + Exception Group Traceback (most recent call last):
  |   File "client.py", line 9, in run
  |     raise MCPError(code=outcome.code, message=outcome.message)
  | mcp.shared.exceptions.MCPError: Connection closed
  +------------------------------------
"""


@pytest.mark.parametrize(
    ("stderr", "said"),
    [
        (FRAMEWORK, "httpx.ConnectError: [Errno 111] Connection refused"),
        (GROUP, "mcp.shared.exceptions.MCPError: Connection closed"),
        ("starting\nfatal: not a git repository\n", "fatal: not a git repository"),
        ("nothing went wrong that it says\n", "nothing went wrong that it says"),
        ("", ""),
    ],
)
def test_the_line_that_names_the_error(tmp_path: Path, stderr: str, said: str) -> None:
    path = tmp_path / "stderr"
    path.write_text(stderr, encoding="utf-8")
    assert error_line(path) == said
