"""A page as the reader sees it: elements found by id, tag or class, and their visible text.

The standard library's HTML parser builds the tree; tests read what a person would read, not markup.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The element's text, whitespace collapsed as a browser shows it."""
        parts = [c if isinstance(c, str) else c.text for c in self.children]
        return " ".join(" ".join(parts).split())

    def iter(self):
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

    def find_all(self, tag: str = "", *, cls: str = "", **attrs: str) -> list[Element]:
        return [
            e
            for e in self.iter()
            if (not tag or e.tag == tag)
            and (not cls or cls in e.attrs.get("class", "").split())
            and all(e.attrs.get(k.rstrip("_")) == v for k, v in attrs.items())
        ]

    def find(self, tag: str = "", *, cls: str = "", **attrs: str) -> Element | None:
        found = self.find_all(tag, cls=cls, **attrs)
        return found[0] if found else None

    def by_id(self, id_: str) -> Element | None:
        return next((e for e in self.iter() if e.attrs.get("id") == id_), None)


class _Builder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag, attrs):
        self.stack[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag):
        # Close up to the matching open element; a stray end tag closes nothing.
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


def parse(html: str | bytes) -> Element:
    builder = _Builder()
    builder.feed(html.decode() if isinstance(html, bytes) else html)
    builder.close()
    return builder.root
