"""Claude Code's auto-memory: every project's memory folder, a version per content, deletions kept,
broken front matter quarantined, nothing read outside the folder."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ledger.importer import memory
from ledger.models import Memory, MemoryVersion

pytestmark = pytest.mark.django_db

TOPIC = """---
name: test command
description: how this repo runs its tests
metadata:
  type: project
  origin: agent
---
Run `make test`; the suite needs Docker.
"""


@pytest.fixture
def claude(tmp_path) -> Path:
    folder = tmp_path / ".claude" / "projects" / "-home-dev-app" / "memory"
    folder.mkdir(parents=True)
    (folder / "MEMORY.md").write_text("- [test command](testing.md) — make test\n")
    (folder / "testing.md").write_text(TOPIC)
    return tmp_path / ".claude"


def versions(name: str) -> list[MemoryVersion]:
    return list(MemoryVersion.objects.filter(memory__name=name).order_by("number"))


def run(claude: Path):
    return memory.import_memory((claude,))


def test_it_reads_the_index_and_each_topic_with_its_front_matter(claude):
    result, changed = run(claude)
    assert (result.files, result.added) == (2, 2)
    assert len(changed) == 2
    [topic] = versions("testing.md")
    assert (topic.mem_name, topic.description, topic.mem_type) == (
        "test command",
        "how this repo runs its tests",
        "project",
    )
    assert topic.frontmatter["metadata"] == {"type": "project", "origin": "agent"}
    [index] = versions("MEMORY.md")
    assert index.content.startswith("- [test command]")
    assert Memory.objects.get(name="testing.md").path == str(
        claude / "projects/-home-dev-app/memory/testing.md"
    )


def test_a_second_pass_over_unchanged_files_adds_nothing(claude):
    run(claude)
    result, changed = run(claude)
    assert (result.added, result.changed, changed) == (0, 0, [])
    assert MemoryVersion.objects.count() == 2


def test_an_edit_adds_a_version_and_keeps_the_old_one(claude):
    run(claude)
    path = claude / "projects/-home-dev-app/memory/testing.md"
    path.write_text(TOPIC.replace("needs Docker", "needs Docker and 4 GB"))
    os.utime(path, ns=(1, 1))  # a different mtime even on a coarse clock
    result, _ = run(claude)
    assert result.changed == 1
    assert [v.number for v in versions("testing.md")] == [1, 2]
    assert "4 GB" in versions("testing.md")[1].content
    assert "4 GB" not in versions("testing.md")[0].content


def test_a_deleted_memory_is_kept_and_marked_deleted(claude):
    run(claude)
    (claude / "projects/-home-dev-app/memory/testing.md").unlink()
    result, _ = run(claude)
    assert result.gone == 1
    gone = Memory.objects.get(name="testing.md")
    assert not gone.present and gone.deleted_at is not None
    assert len(versions("testing.md")) == 1


def test_broken_front_matter_is_quarantined_with_its_reason_and_the_text_kept(claude):
    (claude / "projects/-home-dev-app/memory/broken.md").write_text("---\nname: [unclosed\n---\nbody\n")
    result, _ = run(claude)
    [broken] = versions("broken.md")
    assert result.quarantined == 1
    assert broken.quarantine_reason == "yaml_invalid"
    assert "body" in broken.content


def test_oversized_front_matter_is_quarantined_not_parsed(claude):
    huge = "---\n" + "".join(f"k{i}: {'x' * 60}\n" for i in range(1200)) + "---\nbody\n"
    (claude / "projects/-home-dev-app/memory/huge.md").write_text(huge)
    run(claude)
    assert versions("huge.md")[0].quarantine_reason == "yaml_too_large"


def test_a_topic_file_linking_out_of_the_folder_is_a_problem_and_never_read(claude, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("---\nname: leaked\n---\nthe private key\n")
    (claude / "projects/-home-dev-app/memory/leak.md").symlink_to(secret)
    result, _ = run(claude)
    assert not Memory.objects.filter(name="leak.md").exists()
    assert not MemoryVersion.objects.filter(content__contains="private key").exists()
    assert [p.reason for p in result.problems] == ["leaves_root"]


def test_a_memory_folder_linking_out_of_projects_is_refused(claude, tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "x.md").write_text("outside\n")
    other = claude / "projects" / "-home-dev-web"
    other.mkdir()
    (other / "memory").symlink_to(outside)
    result, _ = run(claude)
    assert not Memory.objects.filter(project_slug="-home-dev-web").exists()
    assert "leaves_root" in [p.reason for p in result.problems]


def test_a_refused_file_is_not_taken_for_a_deleted_one(claude, tmp_path):
    run(claude)
    path = claude / "projects/-home-dev-app/memory/testing.md"
    path.unlink()
    (tmp_path / "moved.md").write_text(TOPIC)
    path.symlink_to(tmp_path / "moved.md")
    result, _ = run(claude)
    assert Memory.objects.get(name="testing.md").present
    assert result.gone == 0


def test_every_claude_directory_is_read(claude, tmp_path):
    second = tmp_path / "config" / "claude"
    (second / "projects" / "-srv-api" / "memory").mkdir(parents=True)
    (second / "projects" / "-srv-api" / "memory" / "MEMORY.md").write_text("- nothing yet\n")
    memory.import_memory((claude, second))
    assert set(Memory.objects.values_list("project_slug", flat=True)) == {"-home-dev-app", "-srv-api"}
