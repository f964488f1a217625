"""A front-matter document splits into its parts, or says why it cannot: never a guess."""

from __future__ import annotations

from ledger.records.document import MAX_DOCUMENT_BYTES, split_document


def test_it_splits_front_matter_from_the_body():
    data, body, problem = split_document(b"---\ntitle: T\n---\n# T\n")
    assert problem is None and data == {"title": "T"} and body.strip() == "# T"


def test_it_quarantines_what_it_cannot_read_with_the_reason():
    assert split_document(b"# no front matter\n")[2][0] == "frontmatter_missing"
    assert split_document(b"---\n- a list\n---\n")[2] == ("yaml_invalid", "front matter is not a mapping")
    assert split_document(b"---\ntitle: \xff\n---\n")[2][0] == "invalid_utf8"
    assert split_document(b"x" * (MAX_DOCUMENT_BYTES + 1))[2][0] == "document_too_large"
