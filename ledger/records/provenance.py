"""A record's provenance as labelled fields for a definition list, never a mapping's repr. No Django.

Provenance is whatever the format nests: majordomus `{origin, derived_from: [refs]}`, agent-ways v1
`{basis: [{evidence: …}], agent, imported: {from, format, status}, …}`, a knowledge file's
`{origin, derived_from}`. Nested keys become one label ("imported · from"); a list gives its
label one value per item; a label met twice keeps one entry with all its values, in file order.
"""

from __future__ import annotations


def label_of(key: object) -> str:
    return str(key).replace("_", " ").strip()


def provenance_fields(value: object, label: str = "") -> list[tuple[str, list[str]]]:
    """(label, values) pairs in the order the file gives them; empty values are left out."""
    fields: dict[str, list[str]] = {}
    for name, text in _leaves(value, label):
        fields.setdefault(name, []).append(text)
    return list(fields.items())


def _leaves(value: object, label: str):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _leaves(item, f"{label} · {label_of(key)}" if label else label_of(key))
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _leaves(item, label)
    elif value is not None and str(value).strip():
        yield label or "provenance", str(value).strip()
