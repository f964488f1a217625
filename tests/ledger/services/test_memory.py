"""Promote a memory to knowledge, mark it wrong: the person's act, audited; the memory file untouched."""

from __future__ import annotations

import pytest

from ledger.models import KnowledgeRecord, Memory
from ledger.services import acts
from ledger.services import memory as services
from tests.ledger import memory_tree

pytestmark = pytest.mark.django_db


def test_it_refuses_to_promote_a_memory_whose_front_matter_does_not_parse(home, reviewer):
    folder = memory_tree.memory_folder(home)
    (folder / "broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    memory_tree.import_memory()
    broken = Memory.objects.get(name="broken.md")
    with pytest.raises(acts.Refused, match="does not parse"):
        services.memory_promote(memory=broken, reviewer=acts.Reviewer.of(reviewer), evidence="seen it")
    assert not KnowledgeRecord.objects.exists()


def test_a_repeated_mark_wrong_with_the_same_note_is_one_act(home, reviewer):
    memory_tree.written_memory(home)
    topic = Memory.objects.get(name="testing.md")
    who = acts.Reviewer.of(reviewer)
    first = services.memory_mark_wrong(memory=topic, reviewer=who, note="stale")
    assert services.memory_mark_wrong(memory=topic, reviewer=who, note="stale") == first
    with pytest.raises(acts.Refused):
        services.memory_mark_wrong(memory=topic, reviewer=who, note="  ")
