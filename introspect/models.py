"""What waysweb keeps: the files it read, every line of them, and the sessions built from them.

Three layers, each derived from the one before and rebuilt from it when needed:
1. bookkeeping: `SourceFile` (one row per generation of a physical file), `RawLine` (every
   physical line), `Quarantine` (lines that could not be imported, with the reason);
2. logical records: `WaysEvent` (one per distinct events-log line), `Way` (the way catalog);
3. derived views: `Session`, `Window`, `Turn`, `TurnWay`, rebuilt per touched session.

Why one long module: it is the Django app's `models` module, the schema in one place. Its classes are
declarations (fields, indexes, constraints, each with its `help_text`), read together with the
migrations that follow them; behaviour lives in the layers above. A `models/` package would only
scatter the three layers above across files that each re-export into `__init__`.
"""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.functional import cached_property

from introspect.rules import event_fields, join
from lib import hashing, linepack, safefs
from lib.packed_text import PackedTextField
from lib.viewers import Viewer


class Project(models.Model):
    """A project directory as agent-ways records it (`CLAUDE_PROJECT_DIR` or the hook's cwd)."""

    path = models.TextField(unique=True)
    name = models.CharField(max_length=255)

    class Meta:
        ordering = ["name", "path"]

    def __str__(self) -> str:
        return self.path


class SourceFile(models.Model):
    """One generation of one physical file: rewritten, truncated or replaced files get a new row."""

    class Kind(models.TextChoices):
        EVENTS = "events"
        EVENTS_ARCHIVE = "events_archive"
        EVENTS_LEGACY = "events_legacy"
        EVENTS_EXTRA = "events_extra"
        TRANSCRIPT = "transcript"
        SUBAGENT_TRANSCRIPT = "subagent_transcript"
        MJ_LEDGER = "mj_ledger"
        DECISIONS = "decisions"
        DECISIONS_ARCHIVE = "decisions_archive"
        FINDINGS = "findings"

    class Status(models.TextChoices):
        ACTIVE = "active"
        GONE = "gone"
        SUPERSEDED = "superseded"

    # The one list of each: which kinds are events logs, which are Claude Code transcripts.
    EVENT_KINDS = (Kind.EVENTS, Kind.EVENTS_ARCHIVE, Kind.EVENTS_LEGACY, Kind.EVENTS_EXTRA)
    TRANSCRIPT_KINDS = (Kind.TRANSCRIPT, Kind.SUBAGENT_TRANSCRIPT)
    DECISION_KINDS = (Kind.DECISIONS, Kind.DECISIONS_ARCHIVE)
    FINDING_KINDS = (Kind.FINDINGS,)

    kind = models.CharField(max_length=32, choices=Kind.choices)
    host = models.CharField(max_length=255, default="", help_text="WAYSWEB_HOST of the importer that read it")
    root = models.TextField(help_text="the configured directory the file was found under")
    rel_path = models.TextField(help_text="path under root; display only, identity is dev/inode/anchor")
    generation = models.PositiveIntegerField(default=1)
    rank = models.BigIntegerField(default=0, help_text="source rank in event order (archives oldest first)")
    session_key = models.CharField(
        max_length=512,
        blank=True,
        default="",
        help_text="transcripts: the session the file belongs to (its name or folder)",
    )
    agent_key = models.CharField(
        max_length=512, blank=True, default="", help_text="subagent files: the agent id"
    )
    dev = models.BigIntegerField(default=0)
    inode = models.BigIntegerField(default=0)
    head_fp = models.CharField(max_length=64, blank=True, default="")
    offset = models.BigIntegerField(default=0, help_text="end of the last committed complete line or member")
    # gzip: a batch may end inside a member hundreds of MB long; the checkpoint is then the member's
    # start (`offset`) plus how much of it is committed, so a restart skips exactly that much.
    member_lines = models.BigIntegerField(
        default=0, help_text="gz: lines of the member at offset already committed"
    )
    member_bytes = models.BigIntegerField(
        default=0, help_text="gz: their uncompressed bytes, newlines included"
    )
    anchor = models.CharField(max_length=64, blank=True, default="")
    size_seen = models.BigIntegerField(default=0)
    mtime_ns = models.BigIntegerField(default=0)
    ctime_ns = models.BigIntegerField(default=0)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ACTIVE)
    lines_seen = models.BigIntegerField(default=0)
    imported = models.BigIntegerField(default=0)
    quarantined = models.BigIntegerField(default=0)
    inert = models.BigIntegerField(default=0)
    duplicate = models.BigIntegerField(default=0)
    # Set by every batch in the transaction that commits its rows, cleared once the sessions they
    # touched are derived (importer/underived.py): a command's start derives what a killed or failed
    # pass left behind by reading these files' rows, not every row.
    underived = models.BooleanField(default=False, help_text="holds rows no derive has read yet")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["host", "root", "rel_path", "generation"], name="source_generation_unique"
            ),
        ]
        indexes = [
            models.Index(fields=["kind", "status"]),
            models.Index(fields=["session_key"]),
            # Almost always empty: the start of every command reads it.
            models.Index(fields=["host"], name="sourcefile_underived", condition=models.Q(underived=True)),
        ]

    def __str__(self) -> str:
        return f"{self.path} (generation {self.generation})"

    @property
    def path(self) -> str:
        return f"{self.root.rstrip('/')}/{self.rel_path}"


class RawLine(models.Model):
    """Every physical line read, so that each occurrence of a duplicated event is accounted for, but
    the line a WaysEvent row or a whole transcript entry stands for (its place): PhysicalLine reads
    them together."""

    # Indexed by rawline_position_unique, which starts with it: a second index only slows inserts.
    source = models.ForeignKey(SourceFile, on_delete=models.CASCADE, related_name="lines", db_index=False)
    offset = models.BigIntegerField(help_text="byte offset of the line; in a gzip archive, of its member")
    index = models.IntegerField(default=0, help_text="line number inside a gzip member; 0 elsewhere")
    # Not indexed: read by position (verify, replay) and in whole (accounting), never looked up by
    # hash; its index was the largest in the database and cost a random write per line.
    sha256 = models.CharField(max_length=64)
    length = models.BigIntegerField()
    outcome = models.CharField(max_length=16, help_text="imported, duplicate, quarantined or inert")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "offset", "index"], name="rawline_position_unique"),
        ]


class PhysicalLine(models.Model):
    """Every physical line read (a database view): its RawLine row, or, for the line that is an
    event's stored place, the event itself, or, for a transcript line read as one whole entry, that
    entry (issue 29: neither store writes a RawLine for such a line; migrations 0037, 0044).

    The place a WaysEvent row holds (source, order_offset, order_index) is the line it was read
    from; a RawLine row at the same place wins (a copy that moved an event there, or a line of an
    older database, which wrote every line's RawLine). A transcript entry at index 0 is its line
    unless a RawLine row shares its offset (a line of several records: those sit at index 1, 2…).
    Read-only: the importer writes RawLine, WaysEvent and TranscriptEntry. `length` is NULL for an
    event's or an entry's line (neither keeps it).
    """

    source = models.ForeignKey(SourceFile, on_delete=models.DO_NOTHING, related_name="+", db_index=False)
    offset = models.BigIntegerField()
    index = models.IntegerField()
    sha256 = models.CharField(max_length=64)
    length = models.BigIntegerField(null=True)
    outcome = models.CharField(max_length=16)

    class Meta:
        managed = False
        db_table = "introspect_physicalline"


class Quarantine(models.Model):
    """A line that could not be imported, kept byte for byte with the reason."""

    source = models.ForeignKey(SourceFile, on_delete=models.CASCADE, related_name="quarantine")
    offset = models.BigIntegerField()
    index = models.IntegerField(default=0)
    length = models.BigIntegerField()
    sha256 = models.CharField(max_length=64)
    raw = models.BinaryField(help_text="the line, or its first KiB when it is too long to keep")
    reason = models.CharField(max_length=32)
    detail = models.TextField(blank=True, default="")
    parser_version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    resolution = models.CharField(max_length=32, blank=True, default="")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "offset", "index"], name="quarantine_position_unique"),
        ]
        indexes = [models.Index(fields=["reason"])]

    def __str__(self) -> str:
        return f"{self.reason} at {self.source.path}:{self.offset}"

    @property
    def raw_preview(self) -> str:
        """The first bytes as escaped text: never rendered as HTML, never decoded leniently."""
        return repr(bytes(self.raw[:300]))[2:-1]


class Session(models.Model):
    """A Claude Code session id seen in the events log (later: in a transcript too)."""

    class Origin(models.TextChoices):
        EVENTS = "events", "session_start recorded"
        INFERRED = "inferred", "inferred from events (no session_start)"
        TRANSCRIPT = "transcript", "transcript only (no agent-ways events)"

    class TranscriptStatus(models.TextChoices):
        PRESENT = "present"
        GONE = "gone", "deleted upstream; kept here"
        NONE = "none", "never imported"

    sid = models.CharField(max_length=512, unique=True)
    project = models.ForeignKey(
        Project, null=True, blank=True, on_delete=models.SET_NULL, related_name="sessions"
    )
    recorded_project = models.TextField(
        default="", blank=True, help_text="project of the first session_start; '' when there is none"
    )
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.INFERRED)
    origin_ts = models.CharField(
        max_length=64, default="", blank=True, help_text="ts of the first session_start"
    )
    started_at = models.DateTimeField(null=True, blank=True)
    last_event_at = models.DateTimeField(null=True, blank=True)
    duration_secs = models.BigIntegerField(default=0)
    event_count = models.BigIntegerField(default=0)
    way_fires = models.BigIntegerField(default=0, help_text="way_fired events, as `ways session list` counts")
    turn_count = models.IntegerField(default=0)
    total_fires = models.IntegerField(default=0, help_text="injected, non-redisclosed turn rows")
    distinct_ways = models.IntegerField(default=0)
    redisclosures = models.IntegerField(default=0)
    gated = models.IntegerField(default=0)
    suppressed = models.IntegerField(default=0)
    judge_blocked = models.IntegerField(default=0)
    near_misses = models.IntegerField(default=0)
    keyed_turns = models.IntegerField(default=0)
    window_count = models.IntegerField(default=0)
    models_seen = models.TextField(
        default="",
        blank=True,
        help_text="comma-separated models: of fires, and of assistant lines in the trunk and subagent files",
    )
    transcript_compactions = models.IntegerField(
        default=0, help_text="compact_boundary lines in the trunk transcript"
    )
    compaction_marks = models.JSONField(
        default=list, blank=True, help_text="each compact_boundary of the trunk: ts, trigger, pre_tokens"
    )
    peak_context_tokens = models.BigIntegerField(
        default=0, help_text="largest input + cache read + cache write of one trunk assistant line"
    )
    first_prompt = models.TextField(blank=True, default="", help_text="the first real prompt, capped")
    transcript = models.ForeignKey(
        "SourceFile",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="the trunk file introspection reads (introspection.md §4.1)",
    )
    transcript_status = models.CharField(
        max_length=16, choices=TranscriptStatus.choices, default=TranscriptStatus.NONE
    )
    window_k = models.PositiveIntegerField(default=200, help_text="context window in K tokens")
    window_from_model = models.BooleanField(default=False, help_text="False: the 200K default applied")
    window_observed = models.BooleanField(
        default=False, help_text="True: the peak context outgrew the model's window, the larger one applied"
    )
    model = models.CharField(max_length=255, blank=True, default="", help_text="last assistant model")
    title = models.TextField(blank=True, default="")
    input_tokens = models.BigIntegerField(default=0)
    output_tokens = models.BigIntegerField(default=0)
    cache_creation_input_tokens = models.BigIntegerField(default=0)
    cache_read_input_tokens = models.BigIntegerField(default=0)
    cost_usd = models.DecimalField(
        max_digits=18,
        decimal_places=8,  # exact: rules/usage.py PLACES
        null=True,
        blank=True,
        help_text="USD at list prices, each message at its model's (rules/pricing.py); NULL: none priced",
    )
    unpriced_messages = models.IntegerField(default=0, help_text="messages of a model with no list price")
    message_count = models.IntegerField(default=0, help_text="user prompts and assistant lines")
    derived_version = models.PositiveIntegerField(
        default=0, help_text="derive.fields.DERIVED_VERSION when last rebuilt"
    )
    built_event_id = models.BigIntegerField(
        default=0, help_text="highest WaysEvent id the derived rows reflect"
    )
    built_entry_id = models.BigIntegerField(
        default=0, help_text="highest TranscriptEntry id the derived rows reflect"
    )
    # An appended line that an older line names as its parent changes what the older line meant
    # (derive/extend.py). A line's parent is written before it in the same file, so these are few:
    # kept here, they answer for an appended tail what asking every older line's parent would.
    waiting_parents = models.JSONField(
        null=True,
        blank=True,
        default=list,
        help_text="parent uuids the trunk's built lines name that none of them has, sorted; "
        "NULL: more than derive.trunk_facts.WAITING_KEPT (ask the lines)",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            models.Index(fields=["-started_at"]),
            models.Index(fields=["project", "-started_at"]),
        ]

    def __str__(self) -> str:
        return self.sid

    LIVE_MINUTES = 10

    @property
    def compactions(self) -> int:
        """Compactions agent-ways recorded (session_starts after the first), else the transcript's."""
        return max(self.window_count - 1, 0) if self.window_count else self.transcript_compactions

    @property
    def windows_seen(self) -> int:
        """agent-ways windows, else one per compaction of the transcript plus the first; 0 for neither."""
        if self.window_count:
            return self.window_count
        return self.transcript_compactions + 1 if self.message_count else 0

    @property
    def duration_source(self) -> str:
        """What duration_secs measures: agent-ways events (origin to last event), or transcript lines."""
        if self.origin == self.Origin.EVENTS:
            return "agent-ways events"
        return "transcript" if self.origin == self.Origin.TRANSCRIPT and self.duration_secs else ""

    @property
    def prompt_line(self) -> str:
        """The first prompt on one line, for under the title; empty when it is the title, whole."""
        prompt = " ".join(self.first_prompt.split())
        return prompt if self.title and prompt != self.title else ""

    @property
    def compacted_window_k(self) -> int | None:
        """The window (K) the session's automatic compactions show it ran with, when narrower
        than the model's: the header says so beside the model's window (rules.join.compacted_window)."""
        autos = [
            mark["pre_tokens"]
            for mark in self.compaction_marks or []
            if mark.get("trigger") == "auto" and isinstance(mark.get("pre_tokens"), int)
        ]
        window = join.compacted_window(self.window_k * 1000, autos)
        return window // 1000 if window else None

    @classmethod
    def live_since(cls) -> tuple[datetime, datetime]:
        """The one rule for "live": the session's newest line is dated within LIVE_MINUTES of now,
        the real clock. Not a file's mtime (a fresh clone or copy of the sample, or a restored
        backup, dates every file now though their lines are weeks old), and not the newest line in
        the database. Bounded above too: a line dated ahead of the clock is no sign of writing now."""
        now = timezone.now()
        window = timedelta(minutes=cls.LIVE_MINUTES)
        return now - window, now + window

    @classmethod
    def live_filter(cls) -> models.Q:
        """`is_live` as a filter of the session list."""
        return models.Q(last_event_at__range=cls.live_since())

    @property
    def context_window_k(self) -> int:
        """The one window figure the page shows: the one the session ran with (its automatic
        compactions' when they show a narrower one than the model's table), else the model's."""
        return self.compacted_window_k or self.window_k

    @property
    def is_live(self) -> bool:
        """Written in the last LIVE_MINUTES (live_since): the page follows new lines. `last_event_at`
        is the newest agent-ways event, or for a Claude Code session without them its newest
        transcript line (derive/rebuild.py, extend.py)."""
        low, high = self.live_since()
        return self.last_event_at is not None and low <= self.last_event_at <= high


class LoggedField:
    """A field of an event's line that its row does not hold (rules/event_fields.UNSTORED): read from
    the raw line as the importer reads it, the line parsed once per event object (its `line_object`:
    a WaysEvent's, or the replay's plain event's, documents/build.ReplayEvent)."""

    def __init__(self, key: str = "") -> None:
        self.key = key

    def __set_name__(self, owner: type, name: str) -> None:
        self.key = self.key or name

    def __get__(self, event, owner: type | None = None):
        if event is None:
            return self
        return event_fields.logged_field(event.line_object, self.key)


class WaysEvent(models.Model):
    """One distinct line of the agent-ways events log (archives, live and legacy unioned).

    Identity is the sha256 of the line bytes: the same line read from an archive, the live file
    and the legacy file is one event. Typed columns are what the UI queries; `raw` keeps the rest.

    The key is `digest`, the hash's first 8 bytes (lib.hashing.digest64), unique; the full `sha256`
    is compared on every look-up (`with_sha`). A line whose digest another line's event holds already
    (a collision, 2**-64) is stored with no digest, unique by its sha256 among those. The 64-char hex
    unique key made the table's write floor 35 s for a million rows, 21.6 s with this one
    (bench/results/2026-12-01-events-indexes.txt, issue 29).
    """

    sha256 = models.CharField(max_length=64)
    digest = models.BigIntegerField(null=True, blank=True, help_text="sha256's first 8 bytes, signed")
    # Indexed by event_source_place, which starts with it (the lines of a source: PhysicalLine).
    source = models.ForeignKey(SourceFile, on_delete=models.PROTECT, related_name="+", db_index=False)
    occurrences = models.PositiveIntegerField(default=1, help_text="identical lines inside one source")
    # Event order (formats-agent-ways.md §2.3 rule 4): ts, then the lowest (rank, position).
    order_rank = models.BigIntegerField()
    order_generation = models.PositiveIntegerField()
    order_offset = models.BigIntegerField()
    order_index = models.IntegerField()
    raw = models.TextField()
    flags = models.JSONField(default=list, blank=True)

    ts_raw = models.CharField(max_length=64, null=True, blank=True)
    ts = models.DateTimeField(null=True, blank=True, help_text="whole seconds; NULL when ts is not UTC Z")
    # Both indexed by the composite indexes below that start with them (event+way, session+order).
    event = models.CharField(max_length=64, null=True, blank=True)
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="events", db_index=False
    )
    session_key = models.CharField(max_length=512, null=True, blank=True)
    project = models.TextField(null=True, blank=True)
    way = models.CharField(max_length=512, null=True, blank=True, db_index=True)
    trigger = models.CharField(max_length=255, null=True, blank=True)
    model = models.CharField(max_length=255, null=True, blank=True)
    token_position = models.BigIntegerField(null=True, blank=True)
    fire_score = models.FloatField(null=True, blank=True)
    matched_span = models.TextField(null=True, blank=True)
    reason = models.TextField(null=True, blank=True)
    verdict = models.CharField(max_length=32, null=True, blank=True)
    p_yes = models.FloatField(null=True, blank=True)
    threshold = models.FloatField(null=True, blank=True)
    prob_en = models.FloatField(null=True, blank=True)

    # The fields kept in `raw` only (rules/event_fields.UNSTORED), read from it when a page shows one.
    domain = LoggedField()
    scope = LoggedField()
    agent_id = LoggedField()
    surface = LoggedField()
    check_id = LoggedField("check")
    schema_gen = LoggedField()
    prob_multi = LoggedField()
    tau_s = LoggedField()
    floor = LoggedField()
    margin = LoggedField()
    score_en = LoggedField()
    score_multi = LoggedField()
    thr_en = LoggedField()
    thr_multi = LoggedField()
    floor_en = LoggedField()
    floor_multi = LoggedField()
    empty_fields = LoggedField()

    class Meta:
        indexes = [
            models.Index(
                fields=["session", "ts_raw", "order_rank", "order_generation", "order_offset", "order_index"],
                name="event_session_order",
            ),
            models.Index(fields=["event", "way"]),
            # The place the event was read from: a replay or --verify reads a source's lines by it.
            models.Index(fields=["source", "order_offset", "order_index"], name="event_source_place"),
            # A session page reads its near-misses in the page's time span (queries.fire_turns
            # near_misses_by_turn): 3 % of the events, so only theirs are indexed.
            models.Index(
                fields=["session", "ts"],
                name="event_session_nearmiss",
                condition=models.Q(event="way_nearmiss"),
            ),
        ]
        # Partial unique indexes both: created without rebuilding the table on SQLite, and each
        # a conflict target of the importer's ON CONFLICT DO NOTHING (two importers racing).
        constraints = [
            models.UniqueConstraint(
                fields=["digest"], condition=models.Q(digest__isnull=False), name="event_digest_unique"
            ),
            models.UniqueConstraint(
                fields=["sha256"], condition=models.Q(digest__isnull=True), name="event_sha256_collided"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ts_raw} {self.event} {self.way or ''}".strip()

    @cached_property
    def line_object(self) -> dict | None:
        """`raw` parsed once (rules/event_fields.line_object), for the LoggedFields to read."""
        return event_fields.line_object(self.raw)

    @staticmethod
    def with_sha(shas: Collection[str], via: str = "") -> models.Q:
        """The events whose line has one of these sha256s, found by their key (`digest`) or, for a
        collided one, by the partial index of the events without one; `via`: the path to the event
        from the model filtered (`"event__"` from TurnWay)."""
        shas = list(shas)
        digests = [hashing.digest64(sha) for sha in shas]
        return models.Q(**{f"{via}digest__in": digests, f"{via}sha256__in": shas}) | models.Q(
            **{f"{via}digest__isnull": True, f"{via}sha256__in": shas}
        )


class DecisionRecord(models.Model):
    """One distinct record of agent-ways' decision log (`decisions.jsonl` and its archives, unioned):
    a prompt or task scan, or a `ways_read` pull (decisions-and-effectiveness.md §1, §8.1).

    Identity is the sha256 of the line, as for WaysEvent: a trim moves lines from the live file to
    an archive, and one line read from both is one record, placed at its lowest (rank, generation,
    offset, index): the stream order upstream's reader walks (archives oldest day first, then the
    live file). The columns are what rules/decision_records.py reads; `raw` keeps the line, which
    the commands hand back to the rules as upstream reads it.
    """

    class Kind(models.TextChoices):
        SCAN = "scan"
        PULL = "pull"

    sha256 = models.CharField(max_length=64, unique=True)
    source = models.ForeignKey(SourceFile, on_delete=models.PROTECT, related_name="+")
    order_rank = models.BigIntegerField()
    order_generation = models.PositiveIntegerField()
    order_offset = models.BigIntegerField()
    order_index = models.IntegerField()
    raw = models.TextField()
    flags = models.JSONField(default=list, blank=True)

    kind = models.CharField(max_length=8, choices=Kind.choices)
    ts_raw = models.CharField(
        max_length=64, blank=True, default="", help_text="as written; the rules compare it as text"
    )
    ts = models.DateTimeField(null=True, blank=True, help_text="whole seconds; NULL when ts is not UTC Z")
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="decisions", db_index=False
    )
    session_key = models.CharField(max_length=512, blank=True, default="")
    agent = models.CharField(max_length=512, blank=True, default="")
    # u64 upstream: NULL (and flagged) past what a signed 64-bit column holds.
    epoch = models.BigIntegerField(null=True, blank=True)
    token_position = models.BigIntegerField(null=True, blank=True)
    scan_id = models.CharField(
        max_length=512, null=True, blank=True, help_text="a scan's own id; a pull's named scan (NULL: none)"
    )
    # Scans
    turn_start = models.BooleanField(default=False)
    surface = models.TextField(blank=True, default="")
    hook_event = models.CharField(max_length=64, blank=True, default="")
    scope = models.CharField(max_length=64, blank=True, default="")
    project = models.TextField(blank=True, default="")
    lane = models.CharField(max_length=64, null=True, blank=True)
    basis = models.CharField(max_length=64, null=True, blank=True)
    sidecar = models.BooleanField(default=False)
    judge_status = models.CharField(max_length=32, null=True, blank=True, help_text="NULL: no judge object")
    judge_reason = models.TextField(null=True, blank=True)
    judge_engine = models.CharField(max_length=255, null=True, blank=True)
    judge_model = models.CharField(max_length=255, null=True, blank=True)
    judge_ms = models.BigIntegerField(null=True, blank=True)
    judge_capped = models.JSONField(default=list, blank=True)
    # Pulls
    way = models.CharField(max_length=512, blank=True, default="")
    window = models.CharField(max_length=64, blank=True, default="")
    out_of_band = models.BooleanField(default=False)
    stamped = models.BooleanField(default=False)
    reason = models.TextField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(
                fields=["session", "order_rank", "order_generation", "order_offset", "order_index"],
                name="decision_session_order",
            ),
            models.Index(
                fields=["order_rank", "order_generation", "order_offset", "order_index"],
                name="decision_stream_order",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.ts_raw} {self.kind} {self.scan_id or self.way}".strip()


class DecisionCandidate(models.Model):
    """One of the top candidates a scan logged, in its logged place (`position`, 0 first)."""

    record = models.ForeignKey(DecisionRecord, on_delete=models.CASCADE, related_name="candidates")
    position = models.PositiveIntegerField()
    way = models.CharField(max_length=512, blank=True, default="")
    cosine = models.FloatField(null=True, blank=True)
    share = models.FloatField(null=True, blank=True)
    margin = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["record", "position"], name="decision_candidate_unique"),
        ]


class DecisionOutcome(models.Model):
    """What became of one way a scan matched or nearly matched (§1.5), in its logged place."""

    record = models.ForeignKey(DecisionRecord, on_delete=models.CASCADE, related_name="outcomes")
    position = models.PositiveIntegerField()
    way = models.CharField(max_length=512, blank=True, default="")
    result = models.CharField(max_length=32, blank=True, default="")
    rank = models.BigIntegerField(null=True, blank=True)
    channel = models.CharField(max_length=64, null=True, blank=True)
    p = models.FloatField(null=True, blank=True)
    p_yes = models.FloatField(null=True, blank=True)
    verdict = models.CharField(max_length=32, null=True, blank=True)
    threshold = models.FloatField(null=True, blank=True)
    mode = models.CharField(max_length=32, null=True, blank=True)
    ancestor = models.CharField(max_length=512, null=True, blank=True)
    shortfall = models.FloatField(null=True, blank=True)
    tau_s = models.FloatField(null=True, blank=True)
    prob_en = models.FloatField(null=True, blank=True)
    prob_multi = models.FloatField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["record", "position"], name="decision_outcome_unique"),
        ]
        indexes = [models.Index(fields=["way", "result"], name="decision_outcome_way")]


class Finding(models.Model):
    """One row of agent-ways' findings ledger (`findings.jsonl`, ADR-201): a claimed (way, control)
    with its criterion and firing evidence, as one `ways-audit assemble --write` run snapshotted it
    (decisions-and-effectiveness.md §2, §8.7).

    Every snapshot row is kept; the current state of a (way, control) is its row with the latest
    `assembled_at` (queries/way_findings.py). Identity is the sha256 of the line: the same snapshot
    line read twice is one row.
    """

    sha256 = models.CharField(max_length=64, unique=True)
    source = models.ForeignKey(SourceFile, on_delete=models.PROTECT, related_name="+")
    order_generation = models.PositiveIntegerField()
    order_offset = models.BigIntegerField()
    order_index = models.IntegerField()
    raw = models.TextField()
    flags = models.JSONField(default=list, blank=True)

    way = models.CharField(max_length=512)
    control = models.CharField(max_length=512)
    criterion = models.TextField(null=True, blank=True, help_text="the claim's satisfied_when; NULL: none")
    tier = models.CharField(max_length=16, help_text="outcome (a criterion exists) or process")
    # u64 upstream: NULL (and flagged) past what a signed 64-bit column holds.
    evidence_total = models.BigIntegerField(null=True, blank=True, help_text="way_fired events")
    evidence_sessions = models.JSONField(default=list, blank=True)
    first_seen = models.CharField(max_length=64, null=True, blank=True)
    last_seen = models.CharField(max_length=64, null=True, blank=True)
    determination = models.CharField(max_length=64, null=True, blank=True)
    assessed_by = models.TextField(null=True, blank=True)
    assessed_at = models.CharField(max_length=64, null=True, blank=True)
    basis = models.TextField(null=True, blank=True)
    assembled_at = models.CharField(max_length=64, help_text="as written; compared as text (RFC 3339 Z)")
    assembled_by = models.CharField(max_length=255)

    class Meta:
        indexes = [models.Index(fields=["way", "control", "assembled_at"], name="finding_way_control")]

    def __str__(self) -> str:
        return f"{self.way} {self.control} @ {self.assembled_at}"


class Window(models.Model):
    """A stretch of a session between two compactions; window 1 opens at the first session_start."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="windows")
    number = models.PositiveIntegerField()
    start_ts = models.CharField(max_length=64)

    class Meta:
        ordering = ["session", "number"]
        constraints = [models.UniqueConstraint(fields=["session", "number"], name="window_number_unique")]


def not_null_indexes(prefix: str, fields: list[str]) -> list[models.Index]:
    """Indexes of foreign keys that are NULL on most rows, holding only the rows that name one: a
    lookup by a value (`=`, `IN`) implies NOT NULL, so SQLite and PostgreSQL use them. An events-only
    history's turns name no transcript line: the full indexes cost its cold load a B-tree write per
    turn and column, for nothing (0042_not_null_indexes)."""
    return [
        models.Index(fields=[name], name=f"{prefix}_{name}", condition=models.Q(**{f"{name}__isnull": False}))
        for name in fields
    ]


class Turn(models.Model):
    """A fire turn: fire-bearing events no more than 3 s apart (introspection.md §3)."""

    class Join(models.TextChoices):
        KEYED = "keyed"
        HEURISTIC = "heuristic"

    # Indexed by turn_epoch_unique and turn_session_window, which start with it: a third index only
    # slowed a cold load's 421,090 turns (bench/results/2026-12-05-stop50-row-floor.txt).
    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="turns", db_index=False)
    epoch = models.PositiveIntegerField(help_text="1-based turn number in the session; never restarts")
    window = models.PositiveIntegerField(default=1)
    ts_raw = models.CharField(max_length=64)
    ts = models.DateTimeField()
    token_position = models.BigIntegerField(default=0, help_text="0 means not recorded")
    join_confidence = models.CharField(max_length=16, choices=Join.choices, default=Join.HEURISTIC)
    join_reason = models.CharField(max_length=64, blank=True, default="")
    transcript_uuid = models.CharField(max_length=64, blank=True, default="")
    prompt_entry = models.ForeignKey(
        "TranscriptEntry",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # Meta.indexes: not_null_indexes
        help_text="keyed turns: the user prompt",
    )
    context_entry = models.ForeignKey(
        "TranscriptEntry",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # Meta.indexes: not_null_indexes
        help_text="keyed turns: the UserPromptSubmit injection",
    )
    nearest_prompt = models.ForeignKey(
        "TranscriptEntry",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        db_index=False,  # Meta.indexes: not_null_indexes
        help_text="heuristic turns: the prompt nearest in time",
    )

    class Meta:
        ordering = ["session", "epoch"]
        constraints = [models.UniqueConstraint(fields=["session", "epoch"], name="turn_epoch_unique")]
        # Covers the session page's per-window summary (queries.window_spans): no table reads.
        indexes = [
            models.Index(fields=["session", "window", "epoch", "token_position"], name="turn_session_window"),
            *not_null_indexes("turn", ["prompt_entry", "context_entry", "nearest_prompt"]),
        ]

    def __str__(self) -> str:
        return f"turn {self.epoch} of {self.session_id}"


class TurnWay(models.Model):
    """One row of a turn's `fired_ways`: a fire, a re-disclosure, or a withheld candidate."""

    turn = models.ForeignKey(Turn, on_delete=models.CASCADE, related_name="ways")
    position = models.PositiveIntegerField()
    event = models.ForeignKey(WaysEvent, on_delete=models.CASCADE, related_name="+")
    judge_event = models.ForeignKey(
        WaysEvent, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", db_index=False
    )
    way_id = models.CharField(max_length=512, db_index=True)
    trigger_channel = models.CharField(max_length=255)
    gated = models.BooleanField(default=False)
    # The event's `reason` as logged (free text: no column length would fit every one).
    suppressed = models.TextField(blank=True, default="")
    redisclosed = models.BooleanField(default=False)
    fire_score = models.FloatField(null=True, blank=True)
    matched_span = models.TextField(null=True, blank=True)

    class Meta:
        ordering = ["turn", "position"]
        indexes = not_null_indexes("turnway", ["judge_event"])

    @property
    def injected(self) -> bool:
        return not self.gated and not self.suppressed


class TurnOutcome(models.Model):
    """The outcome signals of one conversation turn (rules/outcome_signals.py), from the trunk's lines.

    Stored rather than computed on the page: a turn may run over several pages (and its correction
    is read from the next turn's prompt), and the effectiveness page compares them over thousands of
    turns. `causes` names the lines behind each signal (signal → their uuids), for the page's links.
    """

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="turn_outcomes")
    number = models.PositiveIntegerField(
        help_text="the conversation turn; 0: the lines before the first prompt"
    )
    prompt_entry = models.ForeignKey(
        "TranscriptEntry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    tool_errors = models.PositiveIntegerField(default=0)
    interrupts = models.PositiveIntegerField(default=0)
    retries = models.PositiveIntegerField(default=0)
    churn = models.PositiveIntegerField(default=0)
    compactions = models.PositiveIntegerField(default=0)
    correction_cue = models.CharField(
        max_length=16, blank=True, default="", help_text="rules/corrections.py's cue; '' for none"
    )
    tokens = models.BigIntegerField(default=0)
    cost_usd = models.DecimalField(max_digits=18, decimal_places=8, null=True, blank=True)
    unpriced_messages = models.IntegerField(default=0)
    duration_secs = models.FloatField(null=True, blank=True)
    causes = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["session", "number"]
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="turn_outcome_number_unique")
        ]

    def __str__(self) -> str:
        return f"outcome of turn {self.number} of {self.session_id}"


class Way(models.Model):
    """A way file found under a way root today (criteria are current, not as fired)."""

    class RootKind(models.TextChoices):
        PROJECT = "project"
        USER = "user"
        CORE = "core"

    way_id = models.CharField(max_length=512)
    domain = models.CharField(max_length=255)
    root_kind = models.CharField(max_length=16, choices=RootKind.choices)
    root = models.TextField()
    project = models.ForeignKey(Project, null=True, blank=True, on_delete=models.CASCADE, related_name="ways")
    rel_path = models.TextField()
    sha256 = models.CharField(max_length=64)
    frontmatter = models.JSONField(default=dict, blank=True)
    frontmatter_error = models.TextField(blank=True, default="")
    criteria = models.JSONField(default=dict, blank=True)
    body = models.TextField(blank=True, default="")
    present = models.BooleanField(default=True)
    read_at = models.DateTimeField()
    changed_at = models.DateTimeField()

    class Meta:
        ordering = ["way_id"]
        constraints = [models.UniqueConstraint(fields=["root", "way_id"], name="way_root_id_unique")]

    def __str__(self) -> str:
        return self.way_id

    @property
    def path(self) -> str:
        return f"{self.root.rstrip('/')}/{self.rel_path}"


class WayVersion(models.Model):
    """Each distinct content of a way file seen by the importer, to tell when it changed."""

    way = models.ForeignKey(Way, on_delete=models.CASCADE, related_name="versions")
    sha256 = models.CharField(max_length=64)
    content = models.TextField()
    first_seen = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["way", "sha256"], name="way_version_unique")]


class ImportRun(models.Model):
    """One pass of the importer, for the status page and `doctor`."""

    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    files = models.IntegerField(default=0)
    lines = models.BigIntegerField(default=0)
    imported = models.BigIntegerField(default=0)
    quarantined = models.BigIntegerField(default=0)
    inert = models.BigIntegerField(default=0)
    duplicate = models.BigIntegerField(default=0)
    seconds = models.FloatField(default=0)
    error = models.TextField(blank=True, default="")


class DeferredIndex(models.Model):
    """An index a cold load dropped and has not built again yet (importer/deferred_indexes.py): the
    statement that built it, recorded in the transaction that dropped it."""

    name = models.CharField(max_length=255, unique=True)
    table = models.CharField(max_length=255)
    sql = models.TextField()


class TranscriptEntry(models.Model):
    """One physical line of a Claude Code transcript (trunk or subagent file).

    Every physical line is kept per file, because introspection reads one located file per
    session (introspection.md §4.1); `is_copy` marks a uuid already seen in another file of the
    same session (a resumed session replaying its prefix), which conversation views skip.
    """

    # Both indexed by entry_position_unique and entry_session_order, which start with them.
    source = models.ForeignKey(SourceFile, on_delete=models.PROTECT, related_name="entries", db_index=False)
    offset = models.BigIntegerField()
    index = models.IntegerField(default=0)
    session = models.ForeignKey(
        Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="entries", db_index=False
    )
    session_key = models.CharField(max_length=512)
    line_session_id = models.CharField(max_length=512, null=True, blank=True)
    type = models.CharField(max_length=64)
    subtype = models.CharField(max_length=64, blank=True, default="")
    uuid = models.CharField(max_length=64, null=True, blank=True)
    parent_uuid = models.CharField(max_length=64, null=True, blank=True, help_text="never an enforced key")
    logical_parent_uuid = models.CharField(max_length=64, null=True, blank=True)
    timestamp_raw = models.CharField(max_length=64, null=True, blank=True)
    ts = models.DateTimeField(null=True, blank=True)
    is_sidechain = models.BooleanField(default=False)
    agent_id = models.CharField(max_length=512, null=True, blank=True)
    version = models.CharField(max_length=32, blank=True, default="")
    cwd = models.TextField(blank=True, default="")
    is_meta = models.BooleanField(default=False)
    is_compact_summary = models.BooleanField(default=False)
    is_prompt = models.BooleanField(default=False, help_text="a real user prompt")
    prompt_id = models.CharField(max_length=64, null=True, blank=True)
    request_id = models.CharField(max_length=128, null=True, blank=True)
    message_id = models.CharField(max_length=128, null=True, blank=True)
    model = models.CharField(max_length=255, null=True, blank=True)
    hook_event = models.CharField(max_length=64, null=True, blank=True)
    tool_use_id = models.CharField(max_length=128, null=True, blank=True)
    tool_name = models.CharField(max_length=255, null=True, blank=True)
    tool_result_id = models.CharField(max_length=128, null=True, blank=True)
    is_error = models.BooleanField(default=False)
    spawned_agent_id = models.CharField(max_length=512, null=True, blank=True)
    # Stored as zstd on SQLite when long (lib/packed_text.py): SQL reads it through entry_text().
    text = PackedTextField(blank=True, default="")
    input_tokens = models.BigIntegerField(null=True, blank=True)
    output_tokens = models.BigIntegerField(null=True, blank=True)
    cache_creation_input_tokens = models.BigIntegerField(null=True, blank=True)
    cache_read_input_tokens = models.BigIntegerField(null=True, blank=True)
    ephemeral_5m_input_tokens = models.BigIntegerField(
        null=True, blank=True, help_text="usage.cache_creation: the 5-minute cache writes"
    )
    ephemeral_1h_input_tokens = models.BigIntegerField(
        null=True, blank=True, help_text="usage.cache_creation: the 1-hour cache writes (priced higher)"
    )
    # Nullable, like the counts: a NOT NULL column makes SQLite copy this whole table to add it.
    speed = models.CharField(max_length=16, null=True, blank=True, help_text="usage.speed: standard, fast")
    has_usage = models.BooleanField(default=False, help_text="usage carries cache_read_input_tokens")
    inert = models.BooleanField(
        default=False, help_text="counted, raw not kept (progress chatter, snapshots)"
    )
    is_copy = models.BooleanField(default=False)
    sha256 = models.CharField(max_length=64)
    raw = models.BinaryField(help_text="the line; compressed when raw_compressed (lib/linepack.py)")
    raw_compressed = models.BooleanField(default=False)
    flags = models.JSONField(default=list, blank=True)
    # Nullable, so SQLite adds it in place. Read with the row: a page scans only the lines that hold a
    # secret or were never scanned (queries/secret_masks.py), at no extra query.
    has_secret = models.BooleanField(
        null=True, blank=True, help_text="the importer's scan found a secret in the line; null: not scanned"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "offset", "index"], name="entry_position_unique"),
        ]
        indexes = [
            models.Index(fields=["session", "source", "offset"], name="entry_session_order"),
            models.Index(fields=["session_key", "uuid"], name="entry_session_uuid"),
            # The page pairs each call with its result (queries.entry_cards.pair_results): by value,
            # so only the lines that have one are indexed (one line in six; 0043).
            models.Index(
                fields=["tool_use_id"], name="entry_tool_use", condition=models.Q(tool_use_id__isnull=False)
            ),
            models.Index(
                fields=["tool_result_id"],
                name="entry_tool_result",
                condition=models.Q(tool_result_id__isnull=False),
            ),
            # The conversation's turns: a page finds the prompt that opens turn N, and counts the
            # prompts before an entry (its turn number), in these rows only.
            models.Index(
                fields=["source", "offset", "index"],
                condition=models.Q(is_prompt=True, is_copy=False, inert=False),
                name="entry_trunk_prompts",
            ),
            # The rows of one message (its usage, queries.entry_cards.message_usages): assistant lines only.
            models.Index(
                fields=["session", "message_id"],
                name="entry_session_message",
                condition=models.Q(message_id__isnull=False),
            ),
            # The prompt injections near a new turn (derive/rejoin.prompt_turns_near): a live
            # session's append otherwise reads every line of its trunk.
            models.Index(
                fields=["source", "ts"],
                name="entry_prompt_injections",
                condition=models.Q(type="attachment", hook_event="UserPromptSubmit"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.type} {self.uuid or ''} in {self.session_key}"

    @property
    def line(self) -> bytes:
        return linepack.unpack(self.raw, self.raw_compressed)


class LineDictionary(models.Model):
    """A zstd dictionary the importer trained on this database's transcript lines (lib/linepack.py).

    A packed line names its dictionary by the id in its zstd frame: a row reads back with the
    dictionary it was written with, whichever importer (or host) trained it. Never deleted while a row
    may name it; written in the transaction of the first rows packed with it.
    """

    dict_id = models.BigIntegerField(primary_key=True, help_text="the zstd dictionary id its frames carry")
    data = models.BinaryField()
    lines = models.IntegerField(help_text="how many lines it was trained on")
    created_at = models.DateTimeField(auto_now_add=True)


class Subagent(models.Model):
    """A subagent run of a session, linked to the tool call that spawned it when the files say so."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="subagents")
    agent_id = models.CharField(max_length=512)
    source = models.ForeignKey(SourceFile, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    tool_use_id = models.CharField(max_length=128, blank=True, default="")
    spawn_entry = models.ForeignKey(
        TranscriptEntry, null=True, blank=True, on_delete=models.SET_NULL, related_name="spawned"
    )
    agent_type = models.CharField(max_length=255, blank=True, default="")
    description = models.TextField(blank=True, default="")
    link = models.CharField(
        max_length=32, blank=True, default="", help_text="meta.json, tool_result, agent_progress"
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["session", "agent_id"], name="subagent_unique")]


class Spill(models.Model):
    """Hook or tool output Claude Code spilled to `<session>/tool-results/` behind a `<persisted-output>` stub.

    Written as a placeholder (not found, due now) with its stub line, in the line's transaction;
    the file is looked for by the passes that follow (importer/spills.py).
    """

    entry = models.ForeignKey(TranscriptEntry, on_delete=models.CASCADE, related_name="spills")
    name = models.CharField(max_length=255, help_text="file name under the session's tool-results/")
    found = models.BooleanField(default=False, help_text="False: named by the stub but not on disk")
    size = models.BigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True, default="")
    text = models.TextField(blank=True, default="")
    truncated = models.BooleanField(default=False)
    due_at = models.DateTimeField(
        null=True,
        blank=True,
        db_index=True,
        help_text="when a pass looks for the file next; null: found, or no session folder to look in",
    )
    looks = models.PositiveIntegerField(default=0, help_text="times a pass looked for the file")
    looked_at = models.DateTimeField(null=True, blank=True)
    problem = models.CharField(
        max_length=32,
        blank=True,
        default="",
        help_text="lib/safefs reason the file was refused; empty: absent",
    )

    class Meta:
        constraints = [models.UniqueConstraint(fields=["entry", "name"], name="spill_unique")]

    @property
    def problem_label(self) -> str:
        return safefs.REASONS.get(self.problem, self.problem)


class SourceProblem(models.Model):
    """A path under a configured root the importer did not read, and why (lib/safefs.py).

    A link leaving its root, a FIFO or device, an unreadable file or folder, a root past its file
    cap. Each area (events, transcripts, ways, ledger, knowledge, records, majordomus ledgers,
    spills) replaces its own rows for this host whenever it is scanned, so a problem fixed upstream
    disappears on the next pass; the status page and every page's header show what is left.
    """

    host = models.CharField(max_length=255, default="")
    area = models.CharField(max_length=32)
    path = models.TextField()
    path_sha256 = models.CharField(
        max_length=64, help_text="the key: a path may be longer than an index allows"
    )
    reason = models.CharField(max_length=32)
    detail = models.TextField(blank=True, default="")
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()

    class Meta:
        ordering = ["area", "path"]
        constraints = [
            models.UniqueConstraint(fields=["host", "area", "path_sha256"], name="source_problem_unique")
        ]

    def __str__(self) -> str:
        return f"{self.reason}: {self.path}"

    @property
    def label(self) -> str:
        return safefs.REASONS.get(self.reason, self.reason)


class SeenMarkQuerySet(models.QuerySet):
    def of(self, viewer: Viewer) -> SeenMarkQuerySet:
        """The viewer's marks: a signed-in user's, else the browser's made with nobody signed in."""
        if viewer.user_id is not None:
            return self.filter(user_id=viewer.user_id)
        return self.filter(user__isnull=True, browser=viewer.browser)


class SeenMark(models.Model):
    """How far one viewer had read a session when they last opened its page: the newest trunk
    entry (its position) and the fire turns it had then. The list badges what came after; the page
    draws a divider before it. A signed-in viewer's marks are theirs on any browser; without a
    sign-in they belong to the browser's viewer cookie (lib/viewers.py)."""

    session = models.ForeignKey(Session, on_delete=models.CASCADE, related_name="seen_marks")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,
    )
    browser = models.CharField(
        max_length=64, blank=True, default="", help_text="the viewer cookie, when nobody was signed in"
    )
    offset = models.BigIntegerField(default=-1, help_text="position of the newest entry seen; -1: none")
    index = models.IntegerField(default=0)
    turns = models.IntegerField(default=0, help_text="fire turns the session had")
    seen_at = models.DateTimeField()

    objects = SeenMarkQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["user", "session"], condition=models.Q(user__isnull=False), name="seen_mark_user"
            ),
            models.UniqueConstraint(
                fields=["browser", "session"], condition=models.Q(user__isnull=True), name="seen_mark_browser"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.session_id} seen to {self.offset}.{self.index}"

    @property
    def position(self) -> tuple[int, int]:
        return self.offset, self.index


class SecretFinding(models.Model):
    """A secret the importer found (introspect/rules/secrets.py): where, what kind, and the value's hash.
    Never the value: a page reads it back from where it was found when a reviewer reveals it.

    In a transcript line or spill, or an events-log line (`place` "" or "event"): keyed by the line's
    position, as its entry is, so importing a line again adds nothing. In a read-only document (a
    memory file's version, a ledger entry, a knowledge or decision record: `place` is its model's label,
    `place_pk` its row): the document's findings are replaced whenever it is read again, with the page
    that shows it (`where`, `url`) named at import, since introspect's pages never import ledger's."""

    class Place(models.TextChoices):
        LINE = "", "transcript line"
        EVENT = "event", "events-log line"

    source = models.ForeignKey(
        SourceFile, null=True, blank=True, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    place = models.CharField(
        max_length=64, blank=True, default="", help_text="Place, or a document's model label"
    )
    place_pk = models.BigIntegerField(null=True, blank=True, help_text="the document's row")
    # Database defaults: the importer's bulk rows of lines (lib/bulk.Rows) name only the columns they fill.
    where = models.CharField(max_length=255, blank=True, db_default="", help_text="a document: what it is")
    url = models.TextField(blank=True, db_default="", help_text="a document: the page that shows it")
    offset = models.BigIntegerField()
    index = models.IntegerField(default=0)
    session = models.ForeignKey(Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    spill_name = models.CharField(
        max_length=255, blank=True, default="", help_text="empty: in the line itself"
    )
    kind = models.CharField(max_length=64, help_text="secret_kinds.Kind.name")
    fingerprint = models.CharField(max_length=64, help_text="sha256 of the value (secrets.fingerprint)")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["source", "offset", "index", "spill_name", "kind", "fingerprint"],
                name="secret_finding_unique",
            ),
        ]
        indexes = [
            models.Index(fields=["place", "place_pk"], name="secret_finding_document"),
        ]


class SecretFalsePositive(models.Model):
    """A value a person said is no secret: not masked anywhere from then on, imports to come included.
    Remembered by `secrets.finding_key` (kind and the value's hash), never by where it was seen."""

    key = models.CharField(max_length=160, unique=True)
    kind = models.CharField(max_length=64)
    marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    marked_by_name = models.CharField(max_length=150, blank=True, default="")
    at = models.DateTimeField(auto_now_add=True)


class SecretReveal(models.Model):
    """The audit of one masked value shown to a reviewer: who, when, which session, line and kind."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+")
    user_name = models.CharField(max_length=150, help_text="kept even if the user is renamed")
    session = models.ForeignKey(Session, null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    entry = models.ForeignKey(
        TranscriptEntry, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    spill_name = models.CharField(max_length=255, blank=True, default="")
    kind = models.CharField(max_length=64)
    fingerprint = models.CharField(max_length=64)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]


class ProposalApplied(models.Model):
    """The audit of one proposal a reviewer applied (§8.5): which file, the one line before and after,
    the file's hash before and after, and the evidence the page showed. Never written without a POST."""

    class Kind(models.TextChoices):
        REFIRE = "refire", "shorter refire:"
        TOGGLE = "toggle", "project toggle"

    kind = models.CharField(max_length=16, choices=Kind.choices)
    way_id = models.CharField(max_length=512)
    project = models.TextField(blank=True, default="", help_text="the project path (toggle only)")
    path = models.TextField(help_text="the file written")
    line_before = models.TextField(blank=True, default="", help_text="empty: the line was added")
    line_after = models.TextField()
    sha_before = models.CharField(max_length=64, blank=True, default="", help_text="empty: a new file")
    sha_after = models.CharField(max_length=64)
    evidence = models.TextField(blank=True, default="")
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewer_name = models.CharField(max_length=150, help_text="kept even if the user is renamed")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]
        indexes = [models.Index(fields=["way_id", "at"])]


class RelevanceLabel(models.Model):
    """A person's word on one fire: was the way shown on that turn relevant to it (§8.6, ADR-195's
    method in the browser). One label per person per fire, changed in place; every write leaves a
    `LabelAction` in the same transaction.

    Keyed by the fire's `way_fired` event (its sha256), not by a `TurnWay` row: turns are rebuilt
    and renumber their rows, the event line is the fire for good. What the statistics read (way,
    project, channel, score, p_yes, when) is copied in when the label is written, so precision and
    AUC are one query over labels, a label outlives a rebuilt or deleted session, and an export
    carries it whole."""

    class Verdict(models.TextChoices):
        RELEVANT = "relevant"
        IRRELEVANT = "irrelevant"
        UNSURE = "unsure"

    fire = models.CharField(max_length=64, help_text="sha256 of the fire's way_fired event")
    session_key = models.CharField(max_length=512, help_text="the session id")
    turn = models.PositiveIntegerField(null=True, blank=True, help_text="the fire turn's epoch")
    way = models.CharField(max_length=512)
    project = models.TextField(blank=True, default="")
    channel = models.CharField(max_length=255, blank=True, default="", help_text="trigger_channel")
    ts = models.DateTimeField(null=True, blank=True, help_text="the fire turn's time")
    fire_score = models.FloatField(null=True, blank=True)
    p_yes = models.FloatField(null=True, blank=True, help_text="the judge's P(yes) for this way, if judged")
    verdict = models.CharField(max_length=16, choices=Verdict.choices)
    note = models.TextField(blank=True, default="")
    labeller = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    labeller_name = models.CharField(max_length=150, help_text="kept even if the user is renamed or gone")
    frame = models.CharField(
        max_length=1000, blank=True, default="", help_text="the sample it was labelled from (query string)"
    )
    labelled_at = models.DateTimeField()

    class Meta:
        ordering = ["labelled_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["fire", "labeller_name"], name="relevance_label_unique"),
        ]
        indexes = [models.Index(fields=["way", "ts"], name="relevance_label_way")]

    def __str__(self) -> str:
        return f"{self.way} {self.verdict} by {self.labeller_name}"


class LabelAction(models.Model):
    """The audit of one label write: who set which verdict on which fire, what it was before, and
    how (on the page, or by `manage.py labels import`); a label cleared leaves one too (`delete`,
    verdict_after ''). Kept when the label is gone."""

    class Verb(models.TextChoices):
        LABEL = "label"
        RELABEL = "relabel"
        IMPORT = "import"
        DELETE = "delete"

    label = models.ForeignKey(
        RelevanceLabel, null=True, blank=True, on_delete=models.SET_NULL, related_name="actions"
    )
    fire = models.CharField(max_length=64)
    way = models.CharField(max_length=512)
    verb = models.CharField(max_length=16, choices=Verb.choices)
    verdict_before = models.CharField(max_length=16, blank=True, default="")
    verdict_after = models.CharField(max_length=16, blank=True, help_text="'' when the label was cleared")
    note = models.TextField(blank=True, default="")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    user_name = models.CharField(max_length=150, help_text="who acted (an import: who ran it)")
    labeller_name = models.CharField(max_length=150, help_text="whose label it is")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]
