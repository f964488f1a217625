"""Whether a prompt corrects the reply before it (decisions-and-effectiveness.md §8.4).

A correction is the next prompt rejecting or redirecting the previous turn's reply. Only the words
are read, never a model: a cue list a person can check. Its precision and recall are measured on
a labelled sample of prompts (tests/introspect/rules/correction_labels.jsonl) and the test holds
them at the measured values; what the cues miss is a bug report about older work ("the error text
overlaps the input on mobile") or a redirect that names no fault.

The cues, each its own name so a page can say which one matched:
- `negation`: the prompt opens by refusing (no, nope, wrong, stop, wait, undo, revert, don't…);
- `fault`: it says the reply failed or missed (still failing, doesn't work, wrong, you forgot, not
  what I…, I said/meant…);
- `instead`: it swaps one thing for another (instead of, rather than, "vitest not jest");
- `restated`: it repeats the previous prompt with more words (the ask again, amended).
"""

from __future__ import annotations

import re

DEFINITION = (
    "The next prompt rejects or redirects this turn's reply: it opens with a refusal (no, wrong, "
    "undo…), says the work still fails or missed, swaps one thing for another, or restates this "
    "turn's prompt with changes."
)

# Measured on tests/introspect/rules/correction_labels.jsonl (its test holds the rule to them): of
# the prompts the rule marks, how many a person marked (precision); of those a person marked, how
# many the rule marks (recall). Shown beside every correction mark.
LABELLED_PROMPTS = 121
PRECISION = (6, 6)
RECALL = (6, 7)
MEASURED = (
    f"Measured on {LABELLED_PROMPTS} prompts labelled by hand: precision {PRECISION[0]} of {PRECISION[1]}, "
    f"recall {RECALL[0]} of {RECALL[1]}."
)

NEGATION = re.compile(
    r"^\W*(no|nope|nah|nein|wrong|falsch|stop|wait|hold on|undo|revert|roll ?back|don'?t|do not|"
    r"never ?mind|that'?s not|that is not|this is not|not that|not like that)\b",
    re.IGNORECASE,
)
FAULT = re.compile(
    r"\b(still (fails|failing|failed|broken|wrong|red|not|does ?n[o']t|do ?n[o']t|the same|same|errors?)"
    r"|does ?n[o']t work|did ?n[o']t work|is ?n[o']t working|not working|(is|was|are|were|the|that'?s) wrong"
    r"|uses the wrong|wrong (file|one|place|way|unit|name|branch|directory|path)"
    r"|you (forgot|missed|broke|did ?n[o']t|ignored)|not what i|i (said|meant|asked for)|that broke)\b",
    re.IGNORECASE,
)
# "vitest not jest", "finished, not done": a word, an optional comma, "not", a word; the left word
# is no verb that "not" would simply negate ("do not", "is not", "can not").
AUXILIARY = (
    r"do|does|did|is|are|was|were|am|be|can|could|should|would|will|must|may|might|have|has|had|"
    r"shall|why|whether|or|and|if|it|i|you|we|they|he|she|that|this"
)
INSTEAD = re.compile(
    rf"\b(instead of|rather than|statt)\b|\b(?!(?:{AUXILIARY})\b)[a-z][\w-]*,? not (?!only\b|yet\b)[a-z][\w-]*",
    re.IGNORECASE,
)
# A prompt that repeats the previous one is a redirect only when it adds to it, and the repeated
# part is long enough not to be a chance match ("run them" / "run them again" is a new request).
RESTATED_MIN = 16


def correction_cue(prompt: str, previous_prompt: str = "") -> str | None:
    """The cue by which `prompt` corrects the reply to `previous_prompt`; None when it does not."""
    text = " ".join(prompt.split())
    if not text:
        return None
    if NEGATION.search(text):
        return "negation"
    if FAULT.search(text):
        return "fault"
    if INSTEAD.search(text):
        return "instead"
    before = " ".join(previous_prompt.split()).rstrip(".!? ").lower()
    if len(before) >= RESTATED_MIN and text.lower().startswith(before) and len(text) > len(before):
        return "restated"
    return None


def is_correction(prompt: str, previous_prompt: str = "") -> bool:
    return correction_cue(prompt, previous_prompt) is not None
