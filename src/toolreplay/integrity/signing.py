"""Signatures over a sealed file's head: OpenSSH signatures, made and checked by ``ssh-keygen -Y``.

A signature covers a *statement*, not the file: the canonical JSON of the file's kind, the digest of its last
link (its head) and its number of links, ``{"head":…,"kind":"sealed transcript","links":N,"statement":
"toolreplay-seal/1"}``. The head covers every link before it, so the statement stands for the whole file; the
number of links makes a file cut short fail even where its shorter chain is intact. The signature is the armored
OpenSSH signature (``-----BEGIN SSH SIGNATURE-----``) in the namespace ``toolreplay-seal``, in ``FILE.sig`` beside
the file, checked against an ``allowed_signers`` file as git checks commits signed with SSH keys: anyone can check
one with ``ssh-keygen -Y verify`` and the statement's bytes (docs/formats.md).

toolreplay runs ``ssh-keygen`` rather than reading the format itself: the allowed signers' options
(``namespaces=``, ``valid-after=``, ``valid-before=``, ``cert-authority``) then mean exactly what OpenSSH says, a
key held by an agent or a hardware token signs as it does for git, and nothing is added to the dependencies.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

from toolreplay.core.canonical import canonical_bytes
from toolreplay.core.errors import InputError
from toolreplay.core.files import open_binary
from toolreplay.core.records import record
from toolreplay.processes.external import run_program

NAMESPACE = "toolreplay-seal"  # the namespace of a sealed file's signature
REPORT_NAMESPACE = "toolreplay-report"  # the namespace of a report's signature (the Action's sign-key)
STATEMENT = "toolreplay-seal/1"
SUFFIX = ".sig"
ARMOR = b"-----BEGIN SSH SIGNATURE-----"
_MAX_SIGNATURE = 64 * 1024  # an armored signature is under 2 KB even for an RSA key of 16 kbit
_TIMEOUT = 60.0  # seconds ssh-keygen may take (a hardware key waits for its touch)


def statement(kind: str, head: str, links: int) -> bytes:
    """The bytes a sealed file's signature covers."""
    return canonical_bytes({"head": head, "kind": kind, "links": links, "statement": STATEMENT})


def signature_of(path: str) -> str:
    """Where a sealed file's signature lies: beside it, with ``.sig`` added."""
    return path + SUFFIX


@record
class SignatureCheck:
    """What checking one signature found: who signed (the allowed signers' names for the key) and with which key,
    or why it does not hold."""

    good: bool
    signers: tuple[str, ...] = ()
    key: str = ""  # as ssh-keygen names it: "ED25519 key SHA256:…"
    reason: str = ""


def _keygen() -> str:
    found = shutil.which("ssh-keygen")
    if not found:
        raise InputError("signatures need ssh-keygen (OpenSSH 8.2 or later) on PATH, and it is not installed")
    return found


def _run(args: list[str], message: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return run_program([_keygen(), *args], message, _TIMEOUT, "ssh-keygen did not answer", "cannot run ssh-keygen")


def _said(done: subprocess.CompletedProcess[bytes], otherwise: str = "") -> str:
    """What ssh-keygen said of its failure, in its own words: its last line that is not a generic one."""
    lines = [line.strip() for line in done.stderr.decode("utf-8", "replace").splitlines()]
    generic = {"", "Could not verify signature.", "Signing data on standard input", "Signing file -"}
    said = [line.removeprefix("Enter passphrase: ") for line in lines if line not in generic]
    said = [line for line in said if line and not line.startswith("Enter passphrase")]
    return said[-1] if said else otherwise or f"ssh-keygen exited with {done.returncode}"


def key_outside(key: str, *inside: str) -> None:
    """Refuse a signing key that lies in the repository of any of ``inside``: a pull request can edit those."""
    resolved = Path(key).resolve()
    for path in inside:
        if any(root in resolved.parents for root in _repositories(Path(path).resolve().parent)):
            raise InputError(
                "the signing key is inside the repository under test, where a pull request can replace it; "
                "keep it outside (a CI secret written to a temporary file)",
                key,
            )


def _repositories(directory: Path) -> list[Path]:
    """Every git repository ``directory`` lies in: the nearest, and any it is nested in."""
    return [candidate for candidate in (directory, *directory.parents) if (candidate / ".git").exists()]


def sign(message: bytes, key: str, namespace: str = NAMESPACE) -> bytes:
    """The armored OpenSSH signature of ``message`` by ``key`` (a private key, or a public one held by the agent)."""
    if not Path(key).is_file():
        raise InputError("not a key file" if os.path.lexists(key) else "no such key file", key)
    done = _run(["-Y", "sign", "-f", os.path.abspath(key), "-n", namespace], message)
    if done.returncode != 0 or not done.stdout.startswith(ARMOR):
        raise InputError(f"ssh-keygen could not sign with this key: {_said(done)}", key)
    return done.stdout


def read_signature(path: str) -> bytes | None:
    """A signature file's bytes, or None where there is none. A file that is no armored signature reads as the
    reason it is none, after a NUL (which no signature holds), for :func:`check` to say."""
    if not os.path.lexists(path):
        return None
    try:
        regular = stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        regular = False  # a link to nothing
    if not regular:
        return b"\0not a regular file"  # a FIFO or a device is never opened: it could stall the check
    with open_binary(path) as handle:
        data = handle.read(_MAX_SIGNATURE + 1)
    if len(data) > _MAX_SIGNATURE:
        return b"\0larger than any signature (over 64 KB)"
    if not data.lstrip().startswith(ARMOR):
        return b"\0not an OpenSSH signature (no '-----BEGIN SSH SIGNATURE-----')"
    return data


def require_allowed(allowed: str) -> None:
    """Refuse an allowed signers file that is not a regular file (a FIFO would stall ssh-keygen)."""
    if not Path(allowed).is_file():
        problem = "not a regular file" if os.path.lexists(allowed) else "no such file"
        raise InputError(f"{problem}: name the allowed signers file (ssh-keygen's allowed_signers)", allowed)


def check(message: bytes, signature: bytes, allowed: str, identity: str | None, namespace: str) -> SignatureCheck:
    """Check ``signature`` of ``message`` against the ``allowed_signers`` file: as ``identity`` where given, else as
    whichever allowed signer holds the key."""
    require_allowed(allowed)
    if signature.startswith(b"\0"):
        return SignatureCheck(False, reason=signature[1:].decode())
    allowed_path = os.path.abspath(allowed)
    with tempfile.TemporaryDirectory(prefix="toolreplay-sig-") as scratch:
        signature_file = os.path.join(scratch, "signature.sig")  # a copy: never a FIFO, never the user's file
        with open(signature_file, "wb") as handle:
            handle.write(signature)
        names: tuple[str, ...]
        if identity is not None:
            names = (identity,)
        else:
            found = _run(["-Y", "find-principals", "-s", signature_file, "-f", allowed_path])
            names = tuple(line for line in found.stdout.decode("utf-8", "replace").splitlines() if line)
            if found.returncode != 0 or not names:
                return SignatureCheck(
                    False,
                    reason="no allowed signer holds the key that signed, or none holds it now (see valid-after and "
                    f"valid-before) ({_said(found)})",
                )
        verify = ["-Y", "verify", "-f", allowed_path, "-I", names[0], "-n", namespace, "-s", signature_file]
        done = _run(verify, message)
    if done.returncode != 0:
        said = _said(done, f"no key the allowed signers give {names[0]} made it")
        return SignatureCheck(False, names, reason=said)
    said = done.stdout.decode("utf-8", "replace").strip()
    key = said.rsplit(" with ", 1)[1] if " with " in said else ""
    return SignatureCheck(True, names, key)
