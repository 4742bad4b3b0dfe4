"""A program toolreplay relies on: its output, or one line that says why it gave none."""

from __future__ import annotations

import sys

import pytest

from toolreplay.core.errors import InputError
from toolreplay.processes.external import run_program


def test_the_output_of_a_program_and_its_input() -> None:
    done = run_program([sys.executable, "-c", "import sys; sys.stdout.write(sys.stdin.read()[::-1])"], b"abc", 30,
                       "it did not answer", "it did not run")  # fmt: skip
    assert (done.returncode, done.stdout) == (0, b"cba")


def test_a_program_that_cannot_start_or_hangs_is_one_line() -> None:
    with pytest.raises(InputError, match=r"^ssh-keygen cannot run: No such file or directory$"):
        run_program(["/nonexistent/ssh-keygen"], None, 5, "no answer", "ssh-keygen cannot run")
    with pytest.raises(InputError, match=r"^git gave no answer in 0 s$"):
        run_program([sys.executable, "-c", "import time; time.sleep(30)"], None, 0.2, "git gave no answer", "x")
