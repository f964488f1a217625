"""Proposals from people's relevance labels (§8.5, §8.6): the levers agent-ways has when a way fires
where it should not (there is no per-way threshold, §3.5).

- a `description`/`vocabulary` review: the prompts labelled irrelevant that fired it on a semantic
  channel, and the vocabulary words found only in those prompts (never in one labelled relevant);
- a narrower `pattern`: the top-level alternatives of the keyword regex that matched only prompts
  labelled irrelevant, dropped;
- a project toggle: a project where the way was labelled irrelevant at least `MIN_PROJECT_LABELS`
  times and never relevant;
- calibration probes: the labelled prompts as positives (`label: 1`) and hard negatives (`label: 0`)
  in agent-ways' `calibration_probes.jsonl` shape (`{"prompt","way","label"}`, ADR-156/158).

Pure, over `LabelledFire` values the caller builds from whatever holds the labels. Each proposal is
a correlation-based suggestion (who labelled what), never a measured effect.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass

RELEVANT, IRRELEVANT, UNSURE = "relevant", "irrelevant", "unsure"
MIN_PROJECT_LABELS = 3  # irrelevant labels in one project (and no relevant one) before a toggle
WORD = re.compile(r"[a-z0-9][a-z0-9_-]*")


@dataclass(frozen=True)
class LabelledFire:
    """One fire of a way as a person judged it."""

    way: str
    project: str
    channel: str  # `keyword`, `semantic:embedding:en`, …
    prompt: str
    verdict: str  # relevant, irrelevant or unsure
    matched: str = ""  # the keyword span or pattern that matched, when known
    session: str = ""
    turn: int | None = None

    @property
    def semantic(self) -> bool:
        return self.channel.startswith("semantic")

    @property
    def keyword(self) -> bool:
        return self.channel == "keyword"


@dataclass(frozen=True)
class VocabularyReview:
    irrelevant: tuple[LabelledFire, ...]  # semantic fires labelled irrelevant
    relevant: int
    suspect_words: tuple[str, ...]  # vocabulary words in irrelevant prompts and in no relevant one
    vocabulary_after: str  # the vocabulary without them ("" when nothing to drop)


@dataclass(frozen=True)
class PatternNarrowing:
    irrelevant: tuple[LabelledFire, ...]  # keyword fires labelled irrelevant
    dropped: tuple[str, ...]  # alternatives that matched only irrelevant prompts
    pattern_after: str  # "" when no alternative can go (the page lists the prompts only)


@dataclass(frozen=True)
class ProjectToggle:
    project: str
    irrelevant: tuple[LabelledFire, ...]


def words(text: str) -> set[str]:
    return set(WORD.findall(text.lower()))


def vocabulary_review(fires: list[LabelledFire], vocabulary: str) -> VocabularyReview | None:
    """None when no semantic fire was labelled irrelevant."""
    semantic = [fire for fire in fires if fire.semantic]
    bad = tuple(fire for fire in semantic if fire.verdict == IRRELEVANT)
    if not bad:
        return None
    good = [fire for fire in semantic if fire.verdict == RELEVANT]
    in_good = set().union(*(words(fire.prompt) for fire in good))
    in_bad = set().union(*(words(fire.prompt) for fire in bad))
    vocab = vocabulary.split()
    suspect = tuple(w for w in vocab if w.lower() in in_bad and w.lower() not in in_good)
    kept = [w for w in vocab if w not in suspect]
    return VocabularyReview(bad, len(good), suspect, " ".join(kept) if suspect and kept else "")


def alternatives(pattern: str) -> list[str]:
    """The top-level `|` alternatives of a regex (not inside a group, a class or after `\\`)."""
    out, depth, in_class, escaped, start = [], 0, False, False, 0
    for n, ch in enumerate(pattern):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            out.append(pattern[start:n])
            start = n + 1
    out.append(pattern[start:])
    return out


def matches(alternative: str, prompt: str) -> bool:
    try:
        return re.search(alternative, prompt, re.IGNORECASE) is not None
    except re.error:
        return False


def pattern_narrowing(fires: list[LabelledFire], pattern: str) -> PatternNarrowing | None:
    """None when no keyword fire was labelled irrelevant. An alternative goes when it matched an
    irrelevant prompt and no relevant one, and at least one alternative stays."""
    keyword = [fire for fire in fires if fire.keyword]
    bad = tuple(fire for fire in keyword if fire.verdict == IRRELEVANT)
    if not bad:
        return None
    good = [fire for fire in keyword if fire.verdict == RELEVANT]
    parts = alternatives(pattern)
    dropped = tuple(
        part
        for part in parts
        if any(matches(part, fire.prompt) for fire in bad)
        and not any(matches(part, fire.prompt) for fire in good)
    )
    kept = [part for part in parts if part not in dropped]
    if not dropped or not kept:
        return PatternNarrowing(bad, (), "")
    return PatternNarrowing(bad, dropped, "|".join(kept))


def project_toggles(fires: list[LabelledFire]) -> list[ProjectToggle]:
    """Projects where the way was labelled irrelevant MIN_PROJECT_LABELS times or more, never relevant."""
    by_project: dict[str, list[LabelledFire]] = defaultdict(list)
    for fire in fires:
        if fire.project:
            by_project[fire.project].append(fire)
    out = []
    for project, labelled in sorted(by_project.items()):
        bad = tuple(fire for fire in labelled if fire.verdict == IRRELEVANT)
        if len(bad) >= MIN_PROJECT_LABELS and not any(fire.verdict == RELEVANT for fire in labelled):
            out.append(ProjectToggle(project, bad))
    return out


def calibration_probes(fires: list[LabelledFire]) -> str:
    """Relevant prompts as positives, irrelevant as hard negatives (unsure left out), one probe per
    (prompt, way, label), in the order first labelled; `calibration_probes.jsonl` lines."""
    seen, lines = set(), []
    for fire in fires:
        if fire.verdict not in (RELEVANT, IRRELEVANT) or not fire.prompt.strip():
            continue
        probe = (fire.prompt.strip(), fire.way, 1 if fire.verdict == RELEVANT else 0)
        if probe in seen:
            continue
        seen.add(probe)
        lines.append(json.dumps({"prompt": probe[0], "way": probe[1], "label": probe[2]}, ensure_ascii=False))
    return "".join(line + "\n" for line in lines)
