"""Signed sealed recordings and recordings held to a pull request's base: real ssh-keygen, real git repositories.

Every key lives outside the repository it signs for (a CI secret written to a temporary file); each repository is
built by the test with git itself, its base commit and its pull request's commit, and checked with --base.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import SAMPLES, run_cli
from toolreplay.check.base import glob_pattern
from toolreplay.integrity.signing import statement

pytestmark = pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen (OpenSSH) is not installed")

TRANSCRIPT = SAMPLES / "session-clean.jsonl"
SESSION = SAMPLES / "ops" / "session.json"


def _keygen(directory: Path, name: str) -> Path:
    key = directory / name
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(key)], check=True)
    return key


def _public(key: Path) -> str:
    return " ".join(key.with_suffix(".pub").read_text(encoding="utf-8").split()[:2])


@pytest.fixture(scope="module")
def keys(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Alice's and Bob's keys, and an allowed_signers file naming Alice only, outside every repository."""
    directory = tmp_path_factory.mktemp("keys")
    alice, bob = _keygen(directory, "alice"), _keygen(directory, "bob")
    allowed = directory / "allowed_signers"
    allowed.write_text(f"alice@example.com {_public(alice)}\n", encoding="utf-8")
    return {"alice": alice, "bob": bob, "allowed": allowed, "dir": directory}


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def _repository(path: Path) -> Path:
    path.mkdir()
    _git(path, "init", "-q", "-b", "main")
    _git(path, "config", "user.email", "ci@example.com")
    _git(path, "config", "user.name", "CI")
    return path


def _commit(repo: Path, message: str) -> str:
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", message)
    return _git(repo, "rev-parse", "HEAD")


def _sealed(tmp_path: Path, source: Path, name: str = "sealed.jsonl") -> Path:
    out = tmp_path / name
    assert run_cli("seal", str(source), "-o", str(out)).code == 0
    return out


def _rewritten(source: Path, target: Path, text: str) -> None:
    """``source``'s calls with the second call's answer replaced by ``text``: a transcript someone edited."""
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    lines[1]["response"] = {"content": [{"type": "text", "text": text}]}
    target.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")


# --- seal --sign and verify --allowed-signers --------------------------------------------------------------------


@pytest.mark.parametrize("source", [TRANSCRIPT, SESSION], ids=["transcript", "session"])
def test_a_signed_seal_verifies_and_names_its_signer(tmp_path: Path, keys: dict[str, Path], source: Path) -> None:
    out = tmp_path / "sealed.jsonl"
    signed = run_cli("seal", str(source), "-o", str(out), "--sign", str(keys["alice"]), cwd=tmp_path)
    assert signed.code == 0, signed.stderr
    head = json.loads(out.read_text(encoding="utf-8").splitlines()[-1])["digest"]
    assert signed.stdout == f"signed: {out}.sig (head {head})\n"
    assert Path(f"{out}.sig").read_bytes().startswith(b"-----BEGIN SSH SIGNATURE-----")
    checked = run_cli("verify", str(out), "--allowed-signers", str(keys["allowed"]))
    assert checked.code == 0
    lines = checked.stdout.splitlines()
    assert lines[0] == "chain: intact"
    assert lines[1].startswith("signature: good, by alice@example.com (ED25519 key SHA256:")
    # Without --allowed-signers, verify says what it said before signatures existed.
    assert run_cli("verify", str(out)).stdout == "chain: intact\n"


def test_the_signature_is_ssh_keygens_over_the_documented_statement(tmp_path: Path, keys: dict[str, Path]) -> None:
    out = tmp_path / "sealed.jsonl"
    assert run_cli("seal", str(TRANSCRIPT), "-o", str(out), "--sign", str(keys["alice"])).code == 0
    links = out.read_text(encoding="utf-8").splitlines()
    message = statement("sealed transcript", json.loads(links[-1])["digest"], len(links))
    assert message == (
        b'{"head":"'
        + json.loads(links[-1])["digest"].encode()
        + b'","kind":"sealed transcript","links":'
        + str(len(links)).encode()
        + b',"statement":"toolreplay-seal/1"}'
    )
    done = subprocess.run(
        [
            "ssh-keygen",
            "-Y",
            "verify",
            "-f",
            str(keys["allowed"]),
            "-I",
            "alice@example.com",
            "-n",
            "toolreplay-seal",
            "-s",
            f"{out}.sig",
        ],
        input=message,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def test_a_file_already_sealed_is_signed_once_its_chain_holds(tmp_path: Path, keys: dict[str, Path]) -> None:
    sealed = _sealed(tmp_path, TRANSCRIPT)
    assert run_cli("seal", str(sealed), "--sign", str(keys["alice"])).code == 0
    assert run_cli("verify", str(sealed), "--allowed-signers", str(keys["allowed"])).code == 0
    broken = tmp_path / "broken.jsonl"
    broken.write_text(sealed.read_text(encoding="utf-8").replace("intro.md", "intro.MD", 1), encoding="utf-8")
    refused = run_cli("seal", str(broken), "--sign", str(keys["alice"]))
    assert refused.code == 1
    assert refused.stdout.startswith("chain: broken\n")
    assert refused.stdout.endswith("not signed: the chain is broken\n")
    assert not Path(f"{broken}.sig").exists()


def _signed_copy(tmp_path: Path, keys: dict[str, Path]) -> Path:
    out = tmp_path / "sealed.jsonl"
    assert run_cli("seal", str(TRANSCRIPT), "-o", str(out), "--sign", str(keys["alice"])).code == 0
    return out


def _verdict(sealed: Path, allowed: Path, *extra: str) -> tuple[int, str]:
    done = run_cli("verify", str(sealed), "--allowed-signers", str(allowed), *extra)
    return done.code, done.stdout.splitlines()[-1]


def test_a_tampered_link_breaks_the_chain_and_the_signature_is_not_checked(
    tmp_path: Path, keys: dict[str, Path]
) -> None:
    sealed = _signed_copy(tmp_path, keys)
    sealed.write_text(sealed.read_text(encoding="utf-8").replace("intro.md", "intro.MD", 1), encoding="utf-8")
    assert _verdict(sealed, keys["allowed"]) == (1, "signature: not checked, as the chain is broken")


def test_a_file_cut_short_keeps_an_intact_chain_and_fails_its_signature(tmp_path: Path, keys: dict[str, Path]) -> None:
    sealed = _signed_copy(tmp_path, keys)
    lines = sealed.read_text(encoding="utf-8").splitlines(keepends=True)
    sealed.write_text("".join(lines[:-1]), encoding="utf-8")
    assert run_cli("verify", str(sealed)).stdout == "chain: intact\n"  # what the chain alone cannot see
    code, said = _verdict(sealed, keys["allowed"])
    assert code == 1
    assert said == "signature: does not hold: Signature verification failed: incorrect signature"


def test_a_signature_in_another_namespace_does_not_hold(tmp_path: Path, keys: dict[str, Path]) -> None:
    sealed = _signed_copy(tmp_path, keys)
    links = sealed.read_text(encoding="utf-8").splitlines()
    message = statement("sealed transcript", json.loads(links[-1])["digest"], len(links))
    signed = subprocess.run(
        ["ssh-keygen", "-Y", "sign", "-f", str(keys["alice"]), "-n", "git"],
        input=message,
        capture_output=True,
        check=True,
    )
    Path(f"{sealed}.sig").write_bytes(signed.stdout)
    assert _verdict(sealed, keys["allowed"]) == (
        1,
        "signature: does not hold: Couldn't verify signature: namespace does not match",
    )


def test_a_signer_not_allowed_and_another_files_signature_do_not_hold(tmp_path: Path, keys: dict[str, Path]) -> None:
    sealed = _signed_copy(tmp_path, keys)
    assert run_cli("seal", str(sealed), "--sign", str(keys["bob"])).code == 0  # Bob signs over Alice
    code, said = _verdict(sealed, keys["allowed"])
    assert code == 1
    assert said == (
        "signature: does not hold: no allowed signer holds the key that signed, or none holds it now (see valid-after "
        "and valid-before) (No principal matched.)"
    )
    other = tmp_path / "other"
    other.mkdir()
    elsewhere = _sealed(other, SAMPLES / "session-dirty.jsonl")
    assert run_cli("seal", str(elsewhere), "--sign", str(keys["alice"])).code == 0
    shutil.copy(f"{elsewhere}.sig", f"{sealed}.sig")  # a good signature, of another file
    assert _verdict(sealed, keys["allowed"]) == (
        1,
        "signature: does not hold: Signature verification failed: incorrect signature",
    )
    assert _verdict(sealed, keys["allowed"], "--identity", "alice@example.com")[0] == 1


def test_a_key_given_twice(tmp_path: Path, keys: dict[str, Path]) -> None:
    twice = run_cli(
        "seal",
        str(TRANSCRIPT),
        "-o",
        str(tmp_path / "s.jsonl"),
        "--sign",
        str(keys["alice"]),
        "--sign",
        str(keys["bob"]),
    )
    assert (twice.code, twice.stdout) == (2, "")
    assert "--sign is given more than once" in twice.stderr
    assert not (tmp_path / "s.jsonl").exists()
    sealed = _signed_copy(tmp_path, keys)
    both = tmp_path / "allowed_both"  # one key, two names: ssh-keygen finds the first; either holds as --identity
    both.write_text(f"alice@example.com {_public(keys['alice'])}\nops@example.com {_public(keys['alice'])}\n")
    code, said = _verdict(sealed, both)
    assert code == 0
    assert said.startswith("signature: good, by alice@example.com (ED25519")
    assert _verdict(sealed, both, "--identity", "ops@example.com")[0] == 0
    assert _verdict(sealed, keys["allowed"], "--identity", "bob@example.com") == (
        1,
        "signature: does not hold: no key the allowed signers give bob@example.com made it",
    )


def test_hostile_signatures_and_allowed_signers_lines_with_options(tmp_path: Path, keys: dict[str, Path]) -> None:
    sealed = _signed_copy(tmp_path, keys)
    good = Path(f"{sealed}.sig").read_bytes()
    Path(f"{sealed}.sig").write_bytes(b"\x00\xffnot a signature\n")
    assert _verdict(sealed, keys["allowed"]) == (
        1,
        "signature: does not hold: not an OpenSSH signature (no '-----BEGIN SSH SIGNATURE-----')",
    )
    Path(f"{sealed}.sig").write_bytes(good.replace(b"A", b"B", 3))
    code, said = _verdict(sealed, keys["allowed"])
    assert code == 1
    assert said.startswith("signature: does not hold: ")
    Path(f"{sealed}.sig").write_bytes(good)
    pub = _public(keys["alice"])
    for options, holds in (
        ('namespaces="git"', False),  # Alice's key is trusted for commits only
        ('namespaces="git,toolreplay-seal"', True),
        ('valid-before="20200101"', False),  # expired
        ('valid-after="20200101"', True),
    ):
        allowed = tmp_path / "allowed_options"
        allowed.write_text(f"alice@example.com {options} {pub}\n", encoding="utf-8")
        assert (_verdict(sealed, allowed)[0] == 0) is holds, options
    Path(f"{sealed}.sig").unlink()
    assert _verdict(sealed, keys["allowed"]) == (1, f"signature: none ({sealed}.sig does not exist)")
    os.mkfifo(f"{sealed}.sig")  # never opened: a FIFO nobody writes would stall the check
    assert _verdict(sealed, keys["allowed"]) == (1, "signature: does not hold: not a regular file")
    Path(f"{sealed}.sig").unlink()
    Path(f"{sealed}.sig").write_bytes(good + b" " * 70_000)
    assert _verdict(sealed, keys["allowed"]) == (1, "signature: does not hold: larger than any signature (over 64 KB)")
    Path(f"{sealed}.sig").unlink()
    os.mkfifo(tmp_path / "allowed_fifo")
    refused = run_cli(
        "verify",
        str(sealed),
        "--allowed-signers",
        str(tmp_path / "allowed_fifo"),
        "--signature",
        str(tmp_path / "nosig"),
    )
    assert (refused.code, refused.stdout) == (2, "")
    assert "not a regular file" in refused.stderr


def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path, keys: dict[str, Path]) -> None:
    sealed = _signed_copy(tmp_path, keys)
    cases = [
        (("verify", str(sealed), "--identity", "x"), "--identity needs --allowed-signers"),
        (("seal", str(TRANSCRIPT), "--sign", str(keys["alice"])), "--sign needs -o"),
        (
            ("verify", str(sealed), "--allowed-signers", str(tmp_path / "none")),
            "no such file: name the allowed signers file",
        ),
        (
            ("seal", str(TRANSCRIPT), "-o", str(tmp_path / "x.jsonl"), "--sign", str(tmp_path / "nokey")),
            "no such key file",
        ),
        (("seal", str(sealed), "-o", str(tmp_path / "y.jsonl"), "--sign", str(keys["alice"])), "already sealed"),
    ]
    for args, words in cases:
        done = run_cli(*args)
        assert done.code == 2, args
        assert words in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1, done.stderr


def test_a_key_inside_the_repository_is_refused(tmp_path: Path, keys: dict[str, Path]) -> None:
    repo = _repository(tmp_path / "repo")
    shutil.copy(keys["alice"], repo / "key")
    shutil.copy(TRANSCRIPT, repo / "t.jsonl")
    done = run_cli("seal", "t.jsonl", "-o", "s.jsonl", "--sign", "key", cwd=repo)
    assert done.code == 2
    assert "the signing key is inside the repository under test" in done.stderr
    assert not (repo / "s.jsonl").exists()


def test_without_ssh_keygen_the_error_says_so(tmp_path: Path, keys: dict[str, Path]) -> None:
    sealed = _signed_copy(tmp_path, keys)
    done = run_cli("verify", str(sealed), "--allowed-signers", str(keys["allowed"]), env={"PATH": str(tmp_path)})
    assert done.code == 2
    assert done.stderr == (
        "toolreplay: error: signatures need ssh-keygen (OpenSSH 8.2 or later) on PATH, and it is not installed\n"
    )


# --- check: signers: and --base ----------------------------------------------------------------------------------


@pytest.fixture
def base_repo(tmp_path: Path, keys: dict[str, Path]) -> tuple[Path, str]:
    """A repository whose base commit holds a signed sealed transcript, an unsealed one, allowed signers and a
    config asking for signatures."""
    repo = _repository(tmp_path / "repo")
    (repo / "rec").mkdir()
    assert run_cli("seal", str(TRANSCRIPT), "-o", "rec/sealed.jsonl", "--sign", str(keys["alice"]), cwd=repo).code == 0
    shutil.copy(TRANSCRIPT, repo / "rec" / "plain.jsonl")
    shutil.copy(keys["allowed"], repo / "allowed_signers")
    (repo / ".toolreplay.yml").write_text("transcripts: rec/*.jsonl\nsigners: allowed_signers\n", encoding="utf-8")
    return repo, _commit(repo, "base")


def _findings(repo: Path, *args: str) -> tuple[int, list[tuple[str, str, str]]]:
    out = repo.parent / "report.json"
    done = run_cli("check", "--json", str(out), *args, cwd=repo)
    assert done.code in (0, 1), done.stderr
    report = json.loads(out.read_text(encoding="utf-8"))
    found = [
        (f["rule"], f["level"], f"{f['location']['path']}:{f['location']['line']}")
        for result in report["results"]
        for f in result["findings"]
    ]
    return done.code, found


def test_check_asks_for_signatures_where_the_config_names_signers(
    base_repo: tuple[Path, str], keys: dict[str, Path]
) -> None:
    repo, _ = base_repo
    done = run_cli("check", cwd=repo)
    assert done.code == 0
    assert "verify  rec/sealed.jsonl: chain intact (4 links), signed by alice@example.com" in done.stdout
    Path(repo / "rec" / "sealed.jsonl.sig").unlink()
    assert _findings(repo) == (1, [("recording-unsigned", "error", "rec/sealed.jsonl:4")])
    assert run_cli("seal", "rec/sealed.jsonl", "--sign", str(keys["bob"]), cwd=repo).code == 0
    assert _findings(repo) == (1, [("signature-invalid", "error", "rec/sealed.jsonl:4")])


def test_a_pull_request_that_rewrites_and_reseals_a_recording_is_found_at_the_rewritten_link(
    base_repo: tuple[Path, str], keys: dict[str, Path], tmp_path: Path
) -> None:
    repo, base = base_repo
    _rewritten(TRANSCRIPT, tmp_path / "edited.jsonl", "nothing to see")
    assert run_cli("seal", str(tmp_path / "edited.jsonl"), "-o", "rec/sealed.jsonl", cwd=repo).code == 0
    # The pull request also lets its own key in and signs: the base's allowed signers decide.
    (repo / "allowed_signers").write_text(f"mallory@example.com {_public(keys['bob'])}\n", encoding="utf-8")
    assert run_cli("seal", "rec/sealed.jsonl", "--sign", str(keys["bob"]), cwd=repo).code == 0
    _commit(repo, "an innocent prompt change")
    assert run_cli("verify", "rec/sealed.jsonl", cwd=repo).stdout == "chain: intact\n"
    code, found = _findings(repo, "--base", base)
    assert code == 1
    assert found == [
        ("signature-invalid", "error", "rec/sealed.jsonl:4"),
        ("recording-rewritten", "error", "rec/sealed.jsonl:2"),
    ]
    # Without --base, the working tree's allowed signers are read, and the rewrite passes: what --base is for.
    assert _findings(repo) == (0, [])


def test_a_pull_request_that_only_appends_is_clean_and_one_that_deletes_is_found(
    base_repo: tuple[Path, str], keys: dict[str, Path], tmp_path: Path
) -> None:
    repo, base = base_repo
    longer = tmp_path / "longer.jsonl"
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines()
    extra = json.loads(lines[-1])
    extra["index"] = len(lines)
    extra["args"] = {"query": "one more"}
    longer.write_text("\n".join([*lines, json.dumps(extra)]) + "\n", encoding="utf-8")
    assert run_cli("seal", str(longer), "-o", "rec/sealed.jsonl", "--sign", str(keys["alice"]), cwd=repo).code == 0
    _commit(repo, "one call more")
    assert _findings(repo, "--base", base) == (0, [])
    (repo / "rec" / "sealed.jsonl").unlink()
    (repo / "rec" / "sealed.jsonl.sig").unlink()
    (repo / "rec" / "plain.jsonl").unlink()
    (repo / "rec" / "new.jsonl").write_text(TRANSCRIPT.read_text(encoding="utf-8"), encoding="utf-8")
    _commit(repo, "tidy up")
    code, found = _findings(repo, "--base", base)
    assert code == 1
    assert found == [
        ("recording-deleted", "warning", "rec/plain.jsonl:1"),
        ("recording-deleted", "error", "rec/sealed.jsonl:1"),
    ]


def test_an_edit_to_an_unsealed_recording_is_reported_at_the_configured_level(
    base_repo: tuple[Path, str], tmp_path: Path
) -> None:
    repo, base = base_repo
    _rewritten(TRANSCRIPT, repo / "rec" / "plain.jsonl", "edited by hand")
    config = repo / ".toolreplay.yml"
    assert _findings(repo, "--base", base) == (0, [("recording-edited", "warning", "rec/plain.jsonl:2")])
    config.write_text(config.read_text(encoding="utf-8") + "unsealed-edits: error\n", encoding="utf-8")
    assert _findings(repo, "--base", base) == (1, [("recording-edited", "error", "rec/plain.jsonl:2")])
    # The JSON report, read back by merge, keeps the level the config gave.
    merged = run_cli("merge", str(repo.parent / "report.json"), cwd=repo)
    assert merged.code == 1, merged.stderr
    assert "error    recording-edited  rec/plain.jsonl:2" in merged.stdout
    # Lowered below the base's level, the base's level still governs, and the lowering is a finding at its line.
    config.write_text(config.read_text(encoding="utf-8").replace("error", "ignore"), encoding="utf-8")
    line = config.read_text(encoding="utf-8").splitlines().index("unsealed-edits: ignore") + 1
    lowered = ("policy-loosened", "error", f".toolreplay.yml:{line}")
    assert _findings(repo, "--base", base) == (1, [lowered, ("recording-edited", "warning", "rec/plain.jsonl:2")])
    # Where the workflow lets the pull request's policy govern, it does, and the lowering is a warning.
    assert _findings(repo, "--base", base, "--policy", "pr") == (0, [(*lowered[:1], "warning", lowered[2])])


def test_a_shallow_clone_fetches_its_base(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, base = base_repo
    _rewritten(TRANSCRIPT, repo / "rec" / "plain.jsonl", "edited in the pull request")
    _commit(repo, "the pull request")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth=1", f"file://{repo}", str(clone)], check=True)
    assert (
        subprocess.run(["git", "-C", str(clone), "cat-file", "-e", f"{base}^{{commit}}"], check=False).returncode != 0
    )
    done = run_cli("check", "--base", base, cwd=clone)
    assert done.code == 0, done.stderr
    assert "base    rec/plain.jsonl: edited from line 2" in done.stdout
    assert "base    rec/sealed.jsonl: the base's links unchanged" in done.stdout


def test_a_base_that_cannot_be_read_is_one_line_and_exit_2(base_repo: tuple[Path, str], tmp_path: Path) -> None:
    repo, _ = base_repo
    missing = run_cli("check", "--base", "0" * 40, cwd=repo)
    assert (missing.code, missing.stdout) == (2, "")
    assert missing.stderr == (
        f"toolreplay: error: --base {'0' * 40}: no such commit here, and no remote 'origin' to fetch it from\n"
    )
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth=1", f"file://{repo}", str(clone)], check=True)
    fetched = run_cli("check", "--base", "no-such-branch", cwd=clone)
    assert fetched.code == 2
    assert fetched.stderr.startswith("toolreplay: error: --base no-such-branch: this clone does not hold that commit")
    assert fetched.stderr.count("\n") == 1
    plain = tmp_path / "plain"
    plain.mkdir()
    shutil.copy(TRANSCRIPT, plain / "t.jsonl")
    outside = run_cli("check", "--base", "HEAD", "--root", str(plain), cwd=plain)
    assert outside.code == 2
    assert "--base needs a git repository" in outside.stderr
    option = run_cli("check", "--base", "--oops", cwd=repo)
    assert option.code == 2
    assert "is no commit" in option.stderr


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("/r/rec/*.jsonl", "/r/rec/a.jsonl", True),
        ("/r/rec/*.jsonl", "/r/rec/sub/a.jsonl", False),
        ("/r/rec/*.jsonl", "/r/rec/.hidden.jsonl", False),
        ("/r/**/*.json", "/r/a/b/c.json", True),
        ("/r/**/*.json", "/r/c.json", True),
        ("/r/**/*.json", "/r/.git/c.json", False),
        ("/r/s-?.json", "/r/s-1.json", True),
        ("/r/s-[!0-9].json", "/r/s-1.json", False),
        ("/r/s-[0-9].json", "/r/s-1.json", True),
    ],
)
def test_the_base_is_matched_with_the_configs_globs(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_pattern(pattern).match(path)) is matches


# --- what an adversarial pass found ------------------------------------------------------------------------------


def _plain_repo(tmp_path: Path, config: str) -> Path:
    repo = _repository(tmp_path / "repo")
    (repo / "rec").mkdir()
    (repo / ".toolreplay.yml").write_text(config, encoding="utf-8")
    return repo


def test_a_sealed_session_is_held_to_its_base_as_sealed(tmp_path: Path) -> None:
    """A sealed session's first link holds the session's header, format marker and all: it is still sealed."""
    repo = _plain_repo(tmp_path, "sealed: rec/*.json\nunsealed-edits: ignore\n")
    assert run_cli("seal", str(SESSION), "-o", "rec/s.json", cwd=repo).code == 0
    assert run_cli("seal", str(SESSION), "-o", "rec/t.json", cwd=repo).code == 0
    base = _commit(repo, "base")
    edited = SAMPLES / "ops" / "session-edited.json"
    assert run_cli("seal", str(edited), "-o", "rec/s.json", cwd=repo).code == 0
    (repo / "rec" / "t.json").unlink()
    (repo / "rec" / "u.json").write_bytes((repo / "rec" / "s.json").read_bytes())  # the glob still matches
    code, found = _findings(repo, "--base", base)
    assert code == 1
    assert [(rule, level) for rule, level, _ in found] == [
        ("recording-rewritten", "error"),
        ("recording-deleted", "error"),
    ]


def test_a_first_line_of_any_length_and_any_arguments_is_read_as_what_it_is(tmp_path: Path) -> None:
    repo = _plain_repo(tmp_path, "transcripts: rec/*.jsonl\n")
    calls = [json.loads(line) for line in TRANSCRIPT.read_text(encoding="utf-8").splitlines()]
    calls[0]["response"] = {"text": "x" * 10_000}  # a first link far past any sniffed prefix
    calls[1]["args"] = {"format": "toolreplay-session"}  # a session's marker, as an argument
    plain = tmp_path / "plain.jsonl"
    plain.write_text("".join(json.dumps(call) + "\n" for call in calls), encoding="utf-8")
    assert run_cli("seal", str(plain), "-o", "rec/big.jsonl", cwd=repo).code == 0
    base = _commit(repo, "base")
    calls[2]["response"] = {"hits": 0}
    plain.write_text("".join(json.dumps(call) + "\n" for call in calls), encoding="utf-8")
    assert run_cli("seal", str(plain), "-o", "rec/big.jsonl", cwd=repo).code == 0
    assert _findings(repo, "--base", base) == (1, [("recording-rewritten", "error", "rec/big.jsonl:3")])


def test_narrowing_the_globs_does_not_hide_a_removed_recording(tmp_path: Path) -> None:
    repo = _plain_repo(tmp_path, "sealed: rec/*.jsonl\n")
    for name in ("a", "b"):
        assert run_cli("seal", str(TRANSCRIPT), "-o", f"rec/{name}.jsonl", cwd=repo).code == 0
    shutil.copy(TRANSCRIPT, repo / "loose.jsonl")  # the base's config does not name it
    base = _commit(repo, "base")
    (repo / "rec" / "b.jsonl").unlink()
    (repo / ".toolreplay.yml").write_text("sealed: rec/a.jsonl\n", encoding="utf-8")
    assert _findings(repo, "--base", base) == (1, [("recording-deleted", "error", "rec/b.jsonl:1")])
    # A base with no config: every recording in it counted, as the check without one found them.
    bare = _repository(tmp_path / "bare")
    assert run_cli("seal", str(TRANSCRIPT), "-o", "other.jsonl", cwd=bare).code == 0
    (bare / "package.json").write_text('{\n  "name": "not a recording"\n}\n', encoding="utf-8")
    first = _commit(bare, "base")
    (bare / "other.jsonl").unlink()
    (bare / "package.json").unlink()
    (bare / "rec").mkdir()
    shutil.copy(TRANSCRIPT, bare / "rec" / "t.jsonl")
    (bare / ".toolreplay.yml").write_text("transcripts: rec/*.jsonl\n", encoding="utf-8")
    assert _findings(bare, "--base", first) == (1, [("recording-deleted", "error", "other.jsonl:1")])


def test_signers_under_base_are_the_ones_the_bases_config_named(
    base_repo: tuple[Path, str], keys: dict[str, Path]
) -> None:
    repo, base = base_repo
    (repo / "mine").write_text(f"mallory@example.com {_public(keys['bob'])}\n", encoding="utf-8")
    (repo / ".toolreplay.yml").write_text("transcripts: rec/*.jsonl\nsigners: mine\n", encoding="utf-8")
    assert run_cli("seal", str(TRANSCRIPT), "-o", "rec/new.jsonl", "--sign", str(keys["bob"]), cwd=repo).code == 0
    code, found = _findings(repo, "--base", base)
    assert code == 1
    assert found == [("signature-invalid", "error", "rec/new.jsonl:4")]


def test_a_recording_replaced_by_a_fifo_is_found_not_waited_for(base_repo: tuple[Path, str]) -> None:
    repo, base = base_repo
    (repo / "rec" / "plain.jsonl").unlink()
    os.mkfifo(repo / "rec" / "plain.jsonl")
    code, found = _findings(repo, "--base", base)
    assert (code, found) == (0, [("recording-edited", "warning", "rec/plain.jsonl:1")])


def test_signing_never_loses_what_was_there(tmp_path: Path, keys: dict[str, Path]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    refused = run_cli("seal", str(empty), "-o", str(tmp_path / "e.jsonl"), "--sign", str(keys["alice"]))
    assert refused.code == 2
    assert "has no call to seal, so nothing to sign" in refused.stderr
    recorded = tmp_path / "r.sig"  # a recording whose name is what -o r's signature would be called
    shutil.copy(TRANSCRIPT, recorded)
    clash = run_cli("seal", str(recorded), "-o", str(tmp_path / "r"), "--sign", str(keys["alice"]))
    assert clash.code == 2
    assert recorded.read_bytes() == TRANSCRIPT.read_bytes()
    out = _signed_copy(tmp_path, keys)
    before = out.read_bytes(), Path(f"{out}.sig").read_bytes()
    locked = tmp_path / "locked"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "secret", "-f", str(locked)], check=True)
    failed = run_cli("seal", str(SAMPLES / "session-dirty.jsonl"), "-o", str(out), "--sign", str(locked))
    assert failed.code == 2
    assert "Enter passphrase" not in failed.stderr
    assert (out.read_bytes(), Path(f"{out}.sig").read_bytes()) == before
    assert run_cli("verify", str(out), "--allowed-signers", str(keys["allowed"])).code == 0
