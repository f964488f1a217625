"""Turns joined again near the prompts a live session appended (derive/extend.py).

A new prompt line can become the injection an older turn's join looks for (introspection.md §4),
so the turns within reach of it are joined again, reading only the prompt lines within reach of
them; the whole-session join (derive/rebuild.py) would read every line of a long transcript.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.db.models import Case, Value, When

from introspect.derive import rebuild, trunk_facts, turn_counts, turn_rows
from introspect.models import Session, SourceFile, TranscriptEntry, Turn
from introspect.rules import join
from introspect.rules.timestamps import shifted, utc_second

# Stamps keep microseconds: "within the second `s`" is up to s + 999,999 µs, a bound that holds
# at the calendar's end (s + 1 s would not exist there).
WHOLE_SECOND = timedelta(seconds=1, microseconds=-1)
ENTRY_DEFER = ("raw", "cwd", "flags")


class Joiner:
    """The §4 join for some turns, reading only the prompt injections within reach of them.

    The lines it reads are read for all the turns at once: the walks up parentUuid one query per
    hop for every walk (trunk_facts.prompt_turns), the keyed turns' prompt lines in one query, the
    heuristic turns' nearest prompts in at most NEAREST_ONE_BY_ONE queries. A tail of thousands of
    turns costs what a whole rebuild's join costs, not a query for each line it passes."""

    def __init__(self, session: Session, trunk: SourceFile | None, seconds: Sequence[datetime]):
        self.trunk = trunk
        self.reason = stored_no_match_reason(trunk)
        prompts = join.PromptIndex(prompt_turns_near(trunk, seconds) if trunk and seconds else [])
        self.joins = {
            second: join.join_turn(second, prompts, no_match_reason=self.reason) for second in seconds
        }
        self.prompt_lines = trunk_facts.last_lines(
            trunk, {joined.user_uuid for joined in self.joins.values() if joined.user_uuid}
        )
        self.nearest = nearest_prompts(
            trunk, [second for second, joined in self.joins.items() if not joined.user_uuid]
        )

    def join(self, second: datetime) -> join.Join:
        return self.joins[second]

    def prompt_entry(self, joined: join.Join) -> trunk_facts.LineRef | None:
        """The prompt line a keyed turn points at: the file's last line with its uuid, as the rebuild's map."""
        return self.prompt_lines.get(joined.user_uuid) if joined.user_uuid else None

    def nearest_prompt(self, joined: join.Join, second: datetime) -> trunk_facts.PromptLine | None:
        return None if joined.user_uuid else self.nearest.get(second)

    def fields(self, joined: join.Join, second: datetime) -> dict:
        """The turn's join columns (attribute names), as turn_rows.turn_row writes them."""
        return {
            "join_confidence": joined.confidence,
            "join_reason": joined.reason,
            "transcript_uuid": joined.user_uuid,
            "context_entry_id": turn_rows.pk_of(joined.injection),
            "prompt_entry_id": turn_rows.pk_of(self.prompt_entry(joined)),
            "nearest_prompt_id": turn_rows.pk_of(self.nearest_prompt(joined, second)),
        }


def stored_no_match_reason(trunk: SourceFile | None) -> str:
    """join.no_match_reason over the whole trunk, asked of the database instead of its lines."""
    return no_match_reason_with(trunk, first_attachment(trunk) if trunk is not None else None)


def first_attachment(trunk: SourceFile) -> int | None:
    """The id of the trunk's first attachment line (every prompt turn starts at one), if any."""
    lines = TranscriptEntry.objects.filter(source=trunk, type="attachment").order_by("offset", "index")
    return lines.values_list("pk", flat=True).first()


def no_match_reason_with(trunk: SourceFile | None, attachment: int | None) -> str:
    """`stored_no_match_reason`, told the trunk's first attachment already."""
    if trunk is None:
        return join.NO_TRANSCRIPT
    if attachment is not None:
        return join.NO_INJECTION
    entries = TranscriptEntry.objects.filter(source=trunk)
    if not entries.exists():
        return join.NO_TRANSCRIPT
    versions = [
        join.version_tuple(v)
        for v in entries.exclude(version="").values_list("version", flat=True).distinct()
    ]
    return join.PREDATES if not versions or max(versions) < join.ATTACHMENTS_SINCE else join.NO_INJECTION


def prompt_turns_near(trunk: SourceFile, seconds: Sequence[datetime]) -> list[join.PromptTurn]:
    """join.prompt_turns for the injections within the join tolerance of any of these seconds."""
    reach = timedelta(seconds=join.JOIN_TOLERANCE_SECS)
    lo, hi = shifted(min(seconds), -reach), shifted(max(seconds), reach)
    injections = (
        TranscriptEntry.objects.filter(
            source=trunk,
            type="attachment",
            hook_event="UserPromptSubmit",
            ts__gte=lo,
            ts__lte=shifted(hi, WHOLE_SECOND),
        )
        .defer(*ENTRY_DEFER)
        .order_by("offset", "index")
    )
    near = [
        entry
        for entry in injections
        if (second := utc_second(entry.timestamp_raw)) is not None and lo <= second <= hi
    ]
    # Every walk at once, by the (session_key, uuid) index: a query per hop, not per line passed.
    return trunk_facts.prompt_turns(trunk, near)


# Heuristic turns up to this many find their nearest prompt one query each (a backward scan from
# the file's end that stops at the first prompt early enough: a live session's new turn is near
# it); more read the file's dated prompts once, as a whole rebuild does (rebuild.NearestPrompt).
NEAREST_ONE_BY_ONE = 4


def nearest_prompts(
    trunk: SourceFile | None, seconds: Sequence[datetime]
) -> dict[datetime, trunk_facts.PromptLine | None]:
    """rebuild.nearest_prompt for each second: the last prompt in file order whose second is at or before it."""
    seconds = sorted(set(seconds))
    if trunk is None or not seconds:
        return {}
    prompts = TranscriptEntry.objects.filter(source=trunk, is_prompt=True, ts__isnull=False)
    if len(seconds) <= NEAREST_ONE_BY_ONE:
        found = {}
        for second in seconds:
            row = (
                prompts.filter(ts__lte=shifted(second, WHOLE_SECOND))
                .order_by("-offset", "-index")
                .values_list("id", "ts")
                .first()
            )
            found[second] = trunk_facts.PromptLine(*row) if row else None
        return found
    dated = prompts.filter(ts__lte=shifted(seconds[-1], WHOLE_SECOND)).order_by("offset", "index")
    nearest = rebuild.NearestPrompt([trunk_facts.PromptLine(*row) for row in dated.values_list("id", "ts")])
    return {second: nearest.at(second) for second in seconds}


def rejoin_near(session: Session, trunk: SourceFile | None, trunk_new: list[TranscriptEntry]) -> None:
    """Turns within reach of a new prompt injection, joined again; the no-match reason refreshed."""
    # An attachment among the older lines: the reason was "no injection" and stays it (it moves
    # only that way), so no turn has another one to change.
    attachment = first_attachment(trunk) if trunk is not None else None
    if attachment is None or attachment > session.built_entry_id:
        reason = no_match_reason_with(trunk, attachment)
        unmatched = (join.NO_TRANSCRIPT, join.PREDATES, join.NO_INJECTION)
        Turn.objects.filter(session=session, join_reason__in=unmatched).exclude(join_reason=reason).update(
            join_reason=reason
        )
    seconds = [
        second
        for e in trunk_new
        if e.type == "attachment"
        and e.hook_event == "UserPromptSubmit"
        and (second := utc_second(e.timestamp_raw)) is not None
    ]
    if not seconds:
        return
    reach = timedelta(seconds=join.JOIN_TOLERANCE_SECS)
    near = list(
        Turn.objects.filter(
            session=session,
            ts__gte=shifted(min(seconds), -reach),
            ts__lte=shifted(shifted(max(seconds), reach), WHOLE_SECOND),
        )
    )
    near = [
        turn
        for turn in near
        if any(abs((turn.ts - s).total_seconds()) <= join.JOIN_TOLERANCE_SECS for s in seconds)
    ]
    if not near:
        return
    joins = Joiner(session, trunk, [turn.ts for turn in near])
    before = [turn.join_confidence for turn in near]
    for turn in near:
        for name, value in joins.fields(joins.join(turn.ts), turn.ts).items():
            setattr(turn, name, value)
    turn_counts.apply(
        session, turn_counts.Tally(), turn_counts.rejoined(before, [t.join_confidence for t in near])
    )
    Turn.objects.bulk_update(
        near,
        [
            "join_confidence",
            "join_reason",
            "transcript_uuid",
            "context_entry",
            "prompt_entry",
            "nearest_prompt",
        ],
    )


def point_heuristic_turns_at(session: Session, prompts: list[TranscriptEntry]) -> None:
    """A new prompt is the nearest one of every unkeyed turn at or after its second; of several, the
    last in file order (rebuild.NearestPrompt). One update, whatever the number of prompts."""
    winners: list[tuple[datetime, TranscriptEntry]] = []
    for prompt in reversed(prompts):  # file order, last first: it wins every turn at or after its second
        second = prompt.ts.replace(microsecond=0)
        if not winners or second < winners[-1][0]:
            winners.append((second, prompt))  # an earlier line with a later second would win no turn
    if not winners:
        return
    Turn.objects.filter(
        session=session, prompt_entry=None, transcript_uuid="", ts__gte=winners[-1][0]
    ).update(
        nearest_prompt=Case(
            *(When(ts__gte=second, then=Value(prompt.pk)) for second, prompt in winners),
            output_field=Turn._meta.get_field("nearest_prompt"),
        )
    )
