"""The sample's prose files: a sectioned text is cut where formats.py's writers put a section heading."""

from __future__ import annotations

import pytest

from sample import formats, texts


@pytest.fixture
def text_dir(tmp_path, monkeypatch):
    monkeypatch.setattr(texts, "TEXTS", tmp_path)
    return tmp_path


def test_a_section_starts_at_a_level_two_heading_followed_by_a_blank_line(text_dir):
    (text_dir / "adr.md").write_text(
        "## Context\n\nThe app forgot the user.\n\n## Decision\n\nStore the session.\n"
        "\n## Alternatives Considered\n- Cookie only.\n"
    )
    assert texts.sections("adr.md") == [
        ("Context", "The app forgot the user."),
        ("Decision", "Store the session.\n\n## Alternatives Considered\n- Cookie only."),
    ]


def test_what_the_writers_make_of_the_sections_is_the_file_again(text_dir):
    written = "## Status\n\nAccepted\n\n## Context\n\n### Positive\n- Fast.\n"
    (text_dir / "0001.md").write_text(written)
    assert formats.adr_nygard(
        1, "T", date="2026-01-12", status="Accepted", sections=texts.sections("0001.md")[1:]
    ) == ("# 1. T\n\nDate: 2026-01-12\n\n" + written)


def test_text_before_the_first_section_is_refused(text_dir):
    (text_dir / "loose.md").write_text("A preamble.\n\n## Context\n\nText.\n")
    with pytest.raises(AssertionError, match="before the first section"):
        texts.sections("loose.md")


def test_a_tree_lists_every_file_below_it_by_its_relative_path(text_dir):
    (text_dir / "ways/core/meta/context").mkdir(parents=True)
    (text_dir / "ways/core/meta/context/context.md").write_text("---\n---\n")
    (text_dir / "ways/core/meta/context/macro.sh").write_text("echo\n")
    assert texts.tree("ways/core") == {
        "meta/context/context.md": "---\n---\n",
        "meta/context/macro.sh": "echo\n",
    }
