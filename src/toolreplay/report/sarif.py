"""The check report as SARIF 2.1.0, the way GitHub code scanning reads it.

One run; a rule for every kind of finding, whether or not this check found
one, so an alert's rule never disappears, and one for each policy the check
judged by (``policy/ID``, at the policy's level); every result at a path relative to
the repository root (``%SRCROOT%``) with its line, as related locations the
recorded call a replay's finding is about (or, for a call the recording never
made, the recording as a whole file), and a fingerprint made from what the
finding is about (never its line), so an alert survives unrelated edits. How
the tools a replay was given differ from the recorded ones follows, each an
informational result (``kind: informational``, no level) at the tools file's
line: beside the findings, never one of them.
"""

from __future__ import annotations

import hashlib
import json
from urllib.parse import quote

from toolreplay import __version__
from toolreplay.core.canonical import JSONObject
from toolreplay.core.escape import for_markdown, one_line
from toolreplay.core.findings import Rule
from toolreplay.core.outcome import CheckFinding, CheckReport, Location, PolicyInfo, ToolChange

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/toolreplay/toolreplay"
FINGERPRINT_KEY = "toolreplay/v1"
_RULE_INDEX = {rule: index for index, rule in enumerate(Rule)}


def _sentence(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


def _rule(rule: Rule) -> JSONObject:
    info = rule.info
    return {
        "id": rule.value,
        "name": info.name,
        "shortDescription": {"text": info.short},
        "fullDescription": {"text": info.full},
        "help": {"text": info.help, "markdown": f"**{info.short}** {info.help}"},
        "helpUri": f"{INFORMATION_URI}/blob/main/docs/checks.md#{rule.value}",
        "defaultConfiguration": {"level": info.level.value},
        "properties": {"security-severity": info.security_severity, "tags": list(info.tags), "precision": "high"},
    }


def policy_rule_id(policy: str) -> str:
    """A policy's own rule: ``policy/ID``."""
    return f"policy/{policy}"


def _policy_rule(policy: PolicyInfo) -> JSONObject:
    """A policy of the policy file as a rule of its own: its id, its reason and its level."""
    info = Rule.POLICY_VIOLATION.info
    return {
        "id": policy_rule_id(policy.id),
        "name": "Policy_"
        + "".join(part.capitalize() for part in policy.id.replace(".", "-").replace("_", "-").split("-")),
        # the policy's words are the policy file's, which a pull request may write: text made one line and safe,
        # markdown made literal, as every report makes a recording's text
        "shortDescription": {"text": _sentence(one_line(f"Policy {policy.id}: {policy.says}"))},
        "fullDescription": {"text": _sentence(one_line(policy.why))},
        "help": {
            "text": f"{_sentence(one_line(policy.why))} {info.help}",
            "markdown": f"**{for_markdown(_sentence(policy.why))}** {info.help}",
        },
        "helpUri": f"{INFORMATION_URI}/blob/main/docs/checks.md#{Rule.POLICY_VIOLATION.value}",
        "defaultConfiguration": {"level": policy.level.value},
        "properties": {"security-severity": info.security_severity, "tags": list(info.tags), "precision": "high"},
    }


def _in_root(location: Location) -> bool:
    """Whether a report path names a file under %SRCROOT%: SARIF never names one elsewhere."""
    path = location.path
    return not (path.startswith(("/", "../")) or path == ".." or "/../" in path)


def _physical(location: Location) -> JSONObject:
    return {
        "artifactLocation": {"uri": quote(location.path, safe="/"), "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": location.line},
    }


def _result(finding: CheckFinding, policies: dict[str, int]) -> JSONObject:
    rule_id, index = finding.rule.value, _RULE_INDEX[finding.rule]
    if finding.rule is Rule.POLICY_VIOLATION and finding.policy in policies:
        rule_id, index = policy_rule_id(finding.policy), len(_RULE_INDEX) + policies[finding.policy]
    result: JSONObject = {
        "ruleId": rule_id,
        "ruleIndex": index,
        "level": finding.level.value,
        "message": {"text": _sentence(one_line(finding.message))},
        "locations": [{"physicalLocation": _physical(finding.location)}] if _in_root(finding.location) else [],
        "partialFingerprints": {FINGERPRINT_KEY: finding.fingerprint},
    }
    related: list[JSONObject] = [
        {"physicalLocation": _physical(place), "message": {"text": "The recorded call."}}
        for place in finding.related
        if _in_root(place)
    ]
    absent = finding.absent_from
    if absent is not None and _in_root(Location(absent, 1)):  # the whole file: no line of it is this call
        artifact: JSONObject = {"uri": quote(absent, safe="/"), "uriBaseId": "%SRCROOT%"}
        related.append(
            {
                "physicalLocation": {"artifactLocation": artifact},
                "message": {"text": "The recording, which never made this call."},
            }
        )
    if related:
        result["relatedLocations"] = [{"id": number, **place} for number, place in enumerate(related, start=1)]
    return result


def _tool_change(subject: str, change: ToolChange) -> JSONObject:
    """A tool's change a replay was given, as an informational result at the tools file's line: shown beside the
    findings, never one of them (the verdict is the findings')."""
    result: JSONObject = {
        "ruleId": Rule.TOOL_CHANGED.value,
        "ruleIndex": _RULE_INDEX[Rule.TOOL_CHANGED],
        "kind": "informational",
        "level": "none",
        "message": {
            "text": _sentence(
                one_line(f"{change.kind}: {change.tool}: {change.detail} (against the recorded {subject})")
            )
        },
        "locations": [{"physicalLocation": _physical(change.location)}] if _in_root(change.location) else [],
        "partialFingerprints": {
            FINGERPRINT_KEY: hashlib.sha256(
                "\x1f".join(("tools-given", subject, change.kind, change.tool)).encode("utf-8", "surrogatepass")
            ).hexdigest()[:32]
        },
    }
    return result


def sarif_document(report: CheckReport) -> JSONObject:
    policies = {policy.id: number for number, policy in enumerate(report.policies)}
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "toolreplay",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": INFORMATION_URI,
                        "rules": [*(_rule(rule) for rule in Rule), *map(_policy_rule, report.policies)],
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"description": {"text": "The repository root."}}},
                "columnKind": "utf16CodeUnits",
                "results": [
                    *(_result(finding, policies) for finding in report.findings),
                    *(_tool_change(r.subject, change) for r in report.results for change in r.tools),
                ],
            }
        ],
    }


def render_sarif(report: CheckReport) -> str:
    return json.dumps(sarif_document(report), indent=2, ensure_ascii=False) + "\n"
