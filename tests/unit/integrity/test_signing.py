"""A sealed file's signature, made and checked by ssh-keygen against an allowed_signers file."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from toolreplay.integrity import signing

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")


def _key(tmp_path: Path, name: str) -> tuple[str, str]:
    key = tmp_path / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return str(key), (tmp_path / f"{name}.pub").read_text(encoding="utf-8").split(" ", 2)[1]


def test_a_signature_holds_for_its_statement_and_its_signer_only(tmp_path: Path) -> None:
    key, public = _key(tmp_path, "alice")
    _, other = _key(tmp_path, "mallory")
    allowed = tmp_path / "allowed_signers"
    allowed.write_text(f"alice@example.com ssh-ed25519 {public}\nmallory@example.com ssh-ed25519 {other}\n")
    statement = signing.statement("sealed-session", "ab" * 32, 7)
    made = signing.sign(statement, key)
    held = signing.check(statement, made, str(allowed), None, signing.NAMESPACE)
    assert (held.good, held.signers, held.key.startswith("ED25519 key SHA256:")) == (True, ("alice@example.com",), True)
    assert not signing.check(statement, made, str(allowed), "mallory@example.com", signing.NAMESPACE).good
    grown = signing.statement("sealed-session", "ab" * 32, 8)  # one more link: another statement
    assert not signing.check(grown, made, str(allowed), None, signing.NAMESPACE).good
    assert not signing.check(statement, made, str(allowed), None, "another-namespace").good


def test_what_is_not_a_signature_says_why(tmp_path: Path) -> None:
    assert signing.read_signature(str(tmp_path / "none.sig")) is None
    text = tmp_path / "text.sig"
    text.write_text("hello\n")
    assert signing.read_signature(str(text)) == b"\0not an OpenSSH signature (no '-----BEGIN SSH SIGNATURE-----')"
    fifo = tmp_path / "fifo.sig"
    os.mkfifo(fifo)
    assert signing.read_signature(str(fifo)) == b"\0not a regular file"  # never opened: it would stall the check
    assert signing.signature_of("sessions/a.sealed.jsonl") == "sessions/a.sealed.jsonl.sig"
