"""Front matter: split a `---` block from a Markdown document and read it as YAML 1.2.

Way files, ledger entries, knowledge records and ADRs all carry one. agent-ways reads it with
serde_yaml (YAML 1.2 core schema): only `true`/`false` are booleans, and `yes`, `on`, dates stay
text. PyYAML's SafeLoader speaks YAML 1.1, so we strip its extra implicit types. Always a safe
loader (no `!!python/*` tags), with a size cap and duplicate keys refused.
"""

from __future__ import annotations

import functools
import io
import re

MAX_FRONTMATTER_BYTES = 64 * 1024


@functools.cache
def _yaml():
    """PyYAML and the YAML 1.2 loader, built on first use: `ingest`'s start (a no-op re-run parses no
    document) and every page that shows none skip importing PyYAML, a fifth of a megabyte of Python
    (tests/waysweb/management/test_ingest_start.py)."""
    import yaml

    # libyaml's parser where PyYAML was built with it (its wheels are): the same documents, several
    # times faster than the pure-Python scanner on a pass over thousands of knowledge records.
    safe_loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    safe_dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class Yaml12Loader(safe_loader):
        """SafeLoader without YAML 1.1's yes/no/on/off booleans, sexagesimals and timestamps."""

        def construct_mapping(self, node, deep=False):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r}", key_node.start_mark
                    )
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    Yaml12Loader.yaml_implicit_resolvers = {
        first: [
            (tag, regexp)
            for tag, regexp in resolvers
            if tag not in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:timestamp")
        ]
        for first, resolvers in safe_loader.yaml_implicit_resolvers.items()
    }
    Yaml12Loader.add_implicit_resolver(
        "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
    )
    return yaml, Yaml12Loader, safe_dumper


def dump(data: dict) -> str:
    """A front-matter block for `data`, keys in the order given.

    Text, lists and mappings of those (a knowledge record's front matter) go to the emitter as the
    nodes PyYAML's representer would make of them, built here: the representer's Python was two
    thirds of a candidate's rendering (8,955 candidates of the large tier's ledger pass). Anything
    else, or a list or mapping met twice (the representer anchors it), is represented by PyYAML."""
    yaml, _, dumper = _yaml()
    node = _node(yaml.nodes, data, set())
    if node is None:
        return yaml.dump(data, Dumper=dumper, sort_keys=False, allow_unicode=True, width=1000)
    stream = io.StringIO()
    emitter = dumper(stream, default_flow_style=False, sort_keys=False, allow_unicode=True, width=1000)
    emitter.open()  # as yaml.dump: open, the node (`represent` serializes it), close
    emitter.serialize(node)
    emitter.close()
    return stream.getvalue()


TEXT, LIST, MAPPING = "tag:yaml.org,2002:str", "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"


def _node(nodes, value: object, seen: set[int]):
    """The node SafeRepresenter makes of `value` under `yaml.dump(default_flow_style=False)` (block
    style, no explicit style on text), for text, lists and text-keyed mappings of those (exactly
    those types: a subclass is the representer's to judge); None for anything else, or for a list
    or mapping met before in `seen` (ids)."""
    kind = type(value)
    if kind is str:
        return nodes.ScalarNode(TEXT, value)
    if (kind is not list and kind is not dict) or id(value) in seen:
        return None
    seen.add(id(value))
    if kind is list:
        items = [_node(nodes, item, seen) for item in value]
        return None if None in items else nodes.SequenceNode(LIST, items, flow_style=False)
    pairs = []
    for key, item in value.items():
        if type(key) is not str or (node := _node(nodes, item, seen)) is None:
            return None
        pairs.append((nodes.ScalarNode(TEXT, key), node))
    return nodes.MappingNode(MAPPING, pairs, flow_style=False)


def split(text: str) -> tuple[str | None, str]:
    """(front matter block, body). The block is None when the first line is not exactly `---`.

    Lines lose their `\\n` or `\\r\\n`; a missing closing fence gives an empty block and no body.
    """
    lines = text.split("\n")
    if not lines or lines[0].rstrip("\r") != "---":
        return None, text
    for number, line in enumerate(lines[1:], start=1):
        if line.rstrip("\r") == "---":
            block = "\n".join(item.rstrip("\r") for item in lines[1:number])
            return block, "\n".join(lines[number + 1 :])
    return "", ""


def load(block: str) -> object:
    """Parse a front-matter block; raises ValueError with a readable reason."""
    if len(block.encode("utf-8")) > MAX_FRONTMATTER_BYTES:
        raise ValueError(f"front matter larger than {MAX_FRONTMATTER_BYTES // 1024} KiB")
    yaml, loader, _ = _yaml()
    try:
        return yaml.load(block, Loader=loader)
    except yaml.YAMLError as exc:
        raise ValueError(f"invalid YAML: {exc}".replace("\n", " ")) from exc
