"""What ``tools diff`` says of a schema or an annotation that changed: which keyword, from what to what, and only
what a client reads differently. The schemas are shaped as two real releases of a git server list theirs (a
pydantic model's title renamed, a bound added, hints spelled out)."""

from __future__ import annotations

from toolreplay.core.canonical import JSONObject
from toolreplay.surface.drift import DriftKind, diff_surfaces
from toolreplay.surface.model import Surface, SurfaceTool


def _said(old: JSONObject, new: JSONObject) -> list[tuple[str, str]]:
    surfaces = [Surface(name, (SurfaceTool("git", raw, name, 1),)) for name, raw in (("old", old), ("new", new))]
    return [(drift.kind.value, drift.detail) for drift in diff_surfaces(*surfaces)]


def _tool(schema: JSONObject, annotations: JSONObject | None = None) -> JSONObject:
    raw: JSONObject = {"name": "git_add", "description": "Stage files.", "inputSchema": schema}
    if annotations is not None:
        raw["annotations"] = annotations
    return raw


FILES: JSONObject = {"type": "array", "items": {"type": "string"}, "title": "Files"}


def test_a_title_only_change_says_so_and_stays_a_note() -> None:
    old = _tool({"type": "object", "title": "GitAdd", "properties": {"files": FILES}})
    new = _tool({"type": "object", "title": "addArguments", "properties": {"files": FILES}})
    assert _said(old, new) == [
        ("schema-changed", 'the schema\'s titles only, nothing a call passes: title: "GitAdd" to "addArguments"')
    ]
    assert DriftKind.SCHEMA_CHANGED.value == "schema-changed"


def test_a_schema_change_names_the_property_the_keyword_and_both_values() -> None:
    old = _tool({"type": "object", "required": ["files"], "properties": {"files": FILES, "depth": {"type": "integer"}}})
    bounded = {**FILES, "minItems": 1, "description": "Paths, from the repository's root."}
    new = _tool({"type": "object", "properties": {"files": bounded, "depth": {"type": "integer", "maximum": 50}}})
    assert _said(old, new) == [
        (
            "schema-changed",
            "'depth'.maximum: absent to 50; 'files'.description: absent to \"Paths, from the repository's root.\"; "
            "'files'.minItems: absent to 1; 'files' is no longer required",
        )
    ]


def test_what_the_argument_kinds_say_is_not_said_again() -> None:
    old = _tool({"type": "object", "properties": {"files": FILES, "mode": {"type": "string", "enum": ["a", "b"]}}})
    new = _tool(
        {
            "type": "object",
            "properties": {"files": {**FILES, "type": "string"}, "mode": {"type": "string", "enum": ["a"]}, "n": {}},
        }
    )
    kinds = [kind for kind, _ in _said(old, new)]
    assert kinds == ["argument-type-changed", "enum-narrowed", "argument-added"]  # no schema-changed beside them


def test_a_nested_property_added_or_gone_and_many_changes_are_cut_short() -> None:
    nested: JSONObject = {"type": "object", "properties": {f"k{n}": {"type": "string"} for n in range(10)}}
    old = _tool({"type": "object", "properties": {"options": nested}})
    changed: JSONObject = {"type": "object", "properties": {f"k{n}": {"type": "integer"} for n in range(1, 11)}}
    new = _tool({"type": "object", "properties": {"options": changed}})
    [(kind, detail)] = _said(old, new)
    assert kind == "schema-changed"
    assert detail.startswith("'options'.'k0' gone; 'options'.'k1'.type: \"string\" to \"integer\";")
    assert detail.endswith("; and 3 more")  # 11 changes, 8 said


def test_only_annotations_a_client_reads_differently_are_listed() -> None:
    schema: JSONObject = {"type": "object", "properties": {}}
    spelled = _tool(schema, {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": True})
    assert _said(_tool(schema), spelled) == []  # the defaults spelled out: nothing a client reads changed
    idempotent = _tool(schema, {"readOnlyHint": False, "idempotentHint": True})
    assert _said(_tool(schema), idempotent) == [
        ("annotation-changed", "idempotentHint absent (MCP's default: false) to true")
    ]
