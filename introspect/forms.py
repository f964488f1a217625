"""The query strings of the introspection pages, read as forms.

Read leniently, as lib/params.py does: a malformed or out-of-range value reads as absent, never an
error, so these forms are always valid and a view reads `cleaned_data`. (A link, a bookmark or a
crawler writes these, not a person at a form: there is no message to show anyone.)
"""

from __future__ import annotations

import re

from django import forms
from django.http import HttpRequest

from introspect.queries.conversation import parse_position
from lib.params import INT_LIMIT, parse_int


class WholeNumber(forms.Field):
    """A whole number in [low, high]; None when absent or malformed."""

    def __init__(self, *, low: int = -INT_LIMIT, high: int = INT_LIMIT) -> None:
        super().__init__(required=False)
        self.low, self.high = low, high

    def to_python(self, value: str | None) -> int | None:
        return parse_int(value, low=self.low, high=self.high)


class Position(forms.Field):
    """A cursor `offset.index` (queries.conversation.parse_position); None when malformed."""

    def __init__(self) -> None:
        super().__init__(required=False)

    def to_python(self, value: str | None) -> tuple[int, int] | None:
        return parse_position(value or "")


class SeenMark(forms.Field):
    """`seen=<offset>.<index>`, a viewer's mark carried on a link; None when absent or malformed."""

    def __init__(self) -> None:
        super().__init__(required=False)

    def to_python(self, value: str | None) -> tuple[int, int] | None:
        offset, _, index = (value or "").partition(".")
        parsed = parse_int(offset, low=-1), parse_int(index or "0", low=0)
        return None if None in parsed else parsed


class Text(forms.CharField):
    """Text cut to `length` characters (after stripping, when `strip`)."""

    def __init__(self, length: int, *, strip: bool = True) -> None:
        super().__init__(required=False, strip=strip)
        self.length = length
        self.validators = []  # a NUL never gets this far (lib/middleware.py answers 400 to it)

    def to_python(self, value: str | None) -> str:
        return super().to_python(value)[: self.length]


class Days(forms.Field):
    """A window of whole days in [1, MAX_DAYS]; None (every day) for anything else."""

    MAX_DAYS = 36_500

    def __init__(self) -> None:
        super().__init__(required=False)

    def to_python(self, value: str | None) -> int | None:
        text = (value or "").strip()
        # ASCII digits, six at most: str.isdigit() passes "²" and int() refuses 4,301 digits, both raising.
        return int(text) if re.fullmatch(r"[0-9]{1,6}", text) and 0 < int(text) <= self.MAX_DAYS else None


class LenientForm(forms.Form):
    @classmethod
    def read(cls, request: HttpRequest) -> dict:
        form = cls(request.GET)
        form.is_valid()  # always: every field reads a bad value as absent
        return form.cleaned_data


class SessionPageForm(LenientForm):
    """The session page: a page of the conversation (`turn`, `part`: a number or "last"), a
    permalink to one entry (`u`), a fire turn (`from`; with `view=fires` the fire-turn list from
    it), the viewer's mark a later page counts from (`seen`, `seen_turns`), and the search a hit
    came from (`q`, with `hit`: the entry to open whole)."""

    turn = WholeNumber()
    part = Text(32, strip=False)
    u = Text(64, strip=False)
    view = Text(16, strip=False)
    epoch = WholeNumber()
    seen = SeenMark()
    seen_turns = WholeNumber(low=0)
    q = Text(200)
    hit = Text(64, strip=False)
    # The two live tails' first URLs, which pages opened before the tails had their own still poll:
    # sent on to those (views/sessions.py old_poller).
    live_after = WholeNumber()
    after = Position()
    fire = WholeNumber()

    def __init__(self, data, **kwargs) -> None:
        super().__init__(data, **kwargs)
        self.fields["from"] = self.fields.pop("epoch")  # `from` is a keyword: no attribute can say it

    def clean(self) -> dict:
        data = super().clean()
        data["turn"] = max(data["turn"] or 0, 0)
        data["last_part"] = data["part"] == "last"
        data["part"] = max(parse_int(data["part"]) or 0, 0)
        data["fires_view"] = data["view"] == "fires"
        data["search"] = {"q": data["q"]} if data["q"] else {}
        data["hit"] = data["hit"] if data["q"] else ""
        data["fire"] = data["fire"] or 0
        return data


class SubagentPageForm(LenientForm):
    """A subagent's page: a part of its transcript, and the search a hit on it came from."""

    part = WholeNumber()
    q = Text(200)
    hit = Text(64, strip=False)

    def clean(self) -> dict:
        data = super().clean()
        data["part"] = max(data["part"] or 0, 0)
        data["hit"] = data["hit"] if data["q"] else ""
        return data


class TurnTailForm(LenientForm):
    """Live follow of the fire-turn list: the last turn the page shows."""

    after = WholeNumber()


class ConversationTailForm(LenientForm):
    """Live follow of the conversation: the last entry the page shows and the last fire turn."""

    after = Position()
    fire = WholeNumber()

    def clean(self) -> dict:
        data = super().clean()
        data["fire"] = data["fire"] or 0
        return data


class RefireApplyForm(forms.Form):
    """A reviewer's apply of the `refire:` proposal the way page showed: which file, its hash then,
    and the value proposed then (a different proposal now is a conflict, never a silent change)."""

    way_pk = forms.IntegerField(min_value=1)
    loaded_sha256 = forms.CharField(max_length=64)
    proposed = forms.CharField(max_length=32)


class ToggleApplyForm(forms.Form):
    """A reviewer's apply of a project toggle: the project, the overlay's hash then ("absent": none)."""

    project_pk = forms.IntegerField(min_value=1)
    loaded_sha256 = forms.CharField(max_length=64)
    evidence = forms.CharField(max_length=2000, required=False)


class LabelFrameForm(LenientForm):
    """The labelling page's frame and sample (a window of days, a project, a way, a channel family;
    the seed and size of the sample) and the sampled fire shown (`at`, 1-based; absent: the first one
    the person has not labelled)."""

    project = Text(1000)
    days = WholeNumber(low=1, high=36_500)
    way = Text(512)
    channel = Text(32)
    seed = Text(64)
    size = WholeNumber(low=1, high=500)
    at = WholeNumber(low=1, high=500)

    def clean(self) -> dict:
        data = super().clean()
        data["seed"] = data["seed"] or "1"
        data["size"] = data["size"] or 40
        return data


class LabelForm(forms.Form):
    """A person's label of one sampled fire (typed by a person: errors are shown, not read as absent)."""

    fire = forms.RegexField(regex=r"^[0-9a-f]{64}$")
    verdict = forms.ChoiceField(
        choices=[("relevant", "relevant"), ("irrelevant", "irrelevant"), ("unsure", "unsure")]
    )
    note = forms.CharField(required=False, max_length=2000)


class LabelClearForm(forms.Form):
    """A person clearing their own label of one sampled fire."""

    fire = forms.RegexField(regex=r"^[0-9a-f]{64}$")


class EffectivenessForm(LenientForm):
    """The effectiveness page: a project's path, a window in days and a way id, each narrowing it."""

    project = Text(1000)
    days = Days()
    way = Text(512)
