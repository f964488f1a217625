"""Ledger epochs, knowledge candidates and the people's decisions on them.

- `LedgerEntry`: an ADR-112 reflection file (`~/.claude/ledger/<slug>/<ts>_eNNN.md`), a document
  keyed by (root, relative path) with a version per content (knowledge-and-records.md §2.4).
- `KnowledgeRecord`: a `knowledge/v1` file under a knowledge directory's `candidates/` or
  `curated/` (majordomus' or waysweb's own); the file is the truth, the row its index.
- `ReviewAction`: who promoted, rejected, edited or merged what, when — the audit trail, written
  in the same transaction as the state it records.
- `MjLedgerLine`: a majordomus `ledger.jsonl` event; `KnowledgeEvent`: what the deriver did, or
  why it could not.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

from ledger.records import knowledge as knowledge_format
from ledger.records import parse as record_formats


class LedgerEntry(models.Model):
    class Phase(models.TextChoices):
        ORIENTATION = "orientation"
        PROGRESS = "progress"
        CONSOLIDATION = "consolidation"
        HANDOFF = "handoff"
        RESUME = "resume"

    host = models.CharField(max_length=255, default="", help_text="WAYSWEB_HOST of the importer that read it")
    root = models.TextField()
    rel_path = models.TextField()
    project_slug = models.CharField(max_length=512)
    session_key = models.CharField(max_length=512, blank=True, default="")
    session = models.ForeignKey(
        "introspect.Session", null=True, blank=True, on_delete=models.SET_NULL, related_name="ledger_entries"
    )
    epoch = models.IntegerField(null=True, blank=True, help_text="project-monotonic entry number (ADR-112)")
    context_pct = models.IntegerField(null=True, blank=True)
    timestamp_raw = models.CharField(max_length=64, blank=True, default="")
    ts = models.DateTimeField(null=True, blank=True)
    phase = models.CharField(max_length=32, blank=True, default="")
    transcript_path = models.TextField(
        blank=True, default="", help_text="as written; untrusted, never opened"
    )
    body = models.TextField(blank=True, default="")
    sha256 = models.CharField(max_length=64)
    quarantine_reason = models.CharField(max_length=64, blank=True, default="")
    quarantine_detail = models.TextField(blank=True, default="")
    flags = models.JSONField(
        default=list, blank=True, help_text="overlong:<field>: a value too long for its column"
    )
    present = models.BooleanField(default=True)
    read_at = models.DateTimeField()

    class Meta:
        ordering = ["project_slug", "epoch", "ts", "rel_path"]
        constraints = [
            models.UniqueConstraint(fields=["host", "root", "rel_path"], name="ledger_entry_unique")
        ]
        indexes = [models.Index(fields=["session_key"]), models.Index(fields=["project_slug", "epoch"])]

    def __str__(self) -> str:
        return self.rel_path

    @property
    def label(self) -> str:
        return f"ledger entry e{self.epoch:03d}" if self.epoch is not None else "ledger entry (no epoch)"


class LedgerEntryVersion(models.Model):
    entry = models.ForeignKey(LedgerEntry, on_delete=models.CASCADE, related_name="versions")
    sha256 = models.CharField(max_length=64)
    content = models.TextField()
    first_seen = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["entry", "sha256"], name="ledger_version_unique")]


class KnowledgeRecord(models.Model):
    class Status(models.TextChoices):
        CANDIDATE = "candidate"
        VERIFIED = "verified"
        SUPERSEDED = "superseded"

    class SourceClass(models.TextChoices):
        CANDIDATES = "candidates"
        CURATED = "curated"

    class Origin(models.TextChoices):
        MAJORDOMUS = "majordomus"
        WAYSWEB = "waysweb"  # derived here (ledger/derive)

    CLASSES = knowledge_format.CLASSES

    directory = models.TextField(help_text="the knowledge directory holding candidates/ and curated/")
    record_id = models.CharField(max_length=255)
    source_class = models.CharField(max_length=16, choices=SourceClass.choices)
    origin = models.CharField(max_length=16, choices=Origin.choices, default=Origin.MAJORDOMUS)
    klass = models.CharField(max_length=32, blank=True, default="")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.CANDIDATE)
    epistemics = models.CharField(max_length=16, blank=True, default="")
    title = models.TextField(blank=True, default="")
    description = models.TextField(blank=True, default="")
    date = models.CharField(max_length=10, blank=True, default="")
    tags = models.JSONField(default=list, blank=True)
    derived_from = models.JSONField(default=list, blank=True)
    relations = models.JSONField(default=list, blank=True)
    superseded_by = models.CharField(max_length=255, blank=True, default="")
    about = models.TextField(blank=True, default="")
    body = models.TextField(blank=True, default="")
    frontmatter = models.JSONField(default=dict, blank=True)
    sha256 = models.CharField(max_length=64, blank=True, default="")
    # The file's size and mtime when it was last read: a pass skips reading a file still listed so.
    file_size = models.BigIntegerField(null=True, blank=True)
    file_mtime_ns = models.BigIntegerField(null=True, blank=True)
    present = models.BooleanField(default=True)
    problem = models.TextField(
        blank=True, default="", help_text="why the file does not check out, if it does not"
    )
    conflict = models.TextField(
        blank=True, default="", help_text="a file that contradicts a person's decision"
    )
    session = models.ForeignKey(
        "introspect.Session", null=True, blank=True, on_delete=models.SET_NULL, related_name="knowledge"
    )
    ledger_entry = models.ForeignKey(
        LedgerEntry, null=True, blank=True, on_delete=models.SET_NULL, related_name="knowledge"
    )
    turn_epochs = models.JSONField(default=list, blank=True, help_text="turns of the session it came from")
    first_seen = models.DateTimeField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-first_seen", "record_id"]
        constraints = [models.UniqueConstraint(fields=["directory", "record_id"], name="knowledge_unique")]
        indexes = [models.Index(fields=["status", "klass"])]
        permissions = [("review_knowledge", "Can promote, reject, edit and merge knowledge candidates")]

    def __str__(self) -> str:
        return self.record_id

    @property
    def path(self) -> str:
        return f"{self.directory.rstrip('/')}/{self.source_class}/{self.record_id}.md"

    @property
    def status_label(self) -> str:
        """The status as a person names it. knowledge/v1 writes a rejection as `status: superseded`
        (§3: its closed set has no "rejected"), so only a record that names its successor is
        superseded; one without is what the reviewer did to it: rejected."""
        if self.status == self.Status.SUPERSEDED and not self.superseded_by:
            return "rejected"
        return self.status


class ReviewAction(models.Model):
    class Verb(models.TextChoices):
        PROMOTE = "promote"
        REJECT = "reject"
        EDIT = "edit"
        MERGE = "merge"
        RECOVER = "recover", "recovered from the file after an interrupted write"

    record = models.ForeignKey(KnowledgeRecord, on_delete=models.CASCADE, related_name="actions")
    verb = models.CharField(max_length=16, choices=Verb.choices)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    reviewer_name = models.CharField(max_length=150, help_text="kept even if the user is renamed")
    note = models.TextField(blank=True, default="")
    class_before = models.CharField(max_length=32, blank=True, default="")
    class_after = models.CharField(max_length=32, blank=True, default="")
    file_sha_before = models.CharField(max_length=64, blank=True, default="")
    file_sha_after = models.CharField(max_length=64, blank=True, default="")
    related = models.CharField(
        max_length=255, blank=True, default="", help_text="superseded-by / merged-into id"
    )
    batch = models.CharField(max_length=32, blank=True, default="", help_text="bulk actions share a batch id")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]


class MjLedgerLine(models.Model):
    """A majordomus `ledger.jsonl` line; the event name is the FIRST `event` key (§7.1)."""

    source = models.ForeignKey("introspect.SourceFile", on_delete=models.PROTECT, related_name="+")
    offset = models.BigIntegerField()
    index = models.IntegerField(default=0)
    sha256 = models.CharField(max_length=64, unique=True)
    repo = models.TextField()
    ts_raw = models.CharField(max_length=64, blank=True, default="")
    ts = models.DateTimeField(null=True, blank=True)
    event = models.CharField(max_length=128, blank=True, default="")
    provider_event = models.CharField(max_length=128, blank=True, default="")
    episode = models.CharField(max_length=128, blank=True, default="")
    provider_session = models.CharField(max_length=512, blank=True, default="")
    payload = models.JSONField(default=dict, blank=True)
    raw = models.TextField()
    flags = models.JSONField(
        default=list, blank=True, help_text="overlong:<field>: a value too long for its column"
    )

    class Meta:
        ordering = ["ts_raw", "pk"]
        indexes = [models.Index(fields=["event"])]


class KnowledgeEvent(models.Model):
    """What waysweb's deriver did at an episode boundary — or why it did not, never silence."""

    class Kind(models.TextChoices):
        DERIVED = "knowledge.derived"
        FAILED = "derive.failed"
        SKIPPED = "derive.skipped", "switched off by policy"

    class Trigger(models.TextChoices):
        END = "end"
        COMPACT = "compact"
        MANUAL = "manual"

    kind = models.CharField(max_length=32, choices=Kind.choices)
    trigger = models.CharField(max_length=16, choices=Trigger.choices)
    session = models.ForeignKey(
        "introspect.Session", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    window = models.IntegerField(null=True, blank=True)
    written = models.IntegerField(default=0)
    unchanged = models.IntegerField(default=0)
    skipped = models.IntegerField(default=0)
    detail = models.TextField(blank=True, default="")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["session", "window", "trigger", "kind"], name="knowledge_event_once"
            )
        ]


class AdrRecord(models.Model):
    """A decision record, identified by its id inside its repository, never by its file name."""

    # The closed sets the parser normalises every record to (ledger/records/parse.py): one list each.
    Status = models.TextChoices("Status", [(name.upper(), (name, name)) for name in record_formats.STATUSES])
    Format = models.TextChoices(
        "Format", [(name.upper().replace("-", "_"), (name, name)) for name in record_formats.FORMATS]
    )

    repo = models.TextField()
    directory = models.TextField(help_text="the ADR directory it was found in")
    canonical_id = models.CharField(max_length=128)
    rel_path = models.TextField(help_text="path under the repository; may change (a move keeps the id)")
    number = models.CharField(max_length=32, blank=True, default="")
    title = models.TextField(blank=True, default="")
    raw_status = models.TextField(blank=True, default="")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.UNKNOWN)
    date = models.CharField(max_length=10, blank=True, default="")
    format = models.CharField(max_length=16, choices=Format.choices, blank=True, default="")
    sections = models.JSONField(default=list, blank=True)
    frontmatter = models.JSONField(default=dict, blank=True)
    provenance = models.JSONField(default=dict, blank=True)
    deciders = models.JSONField(default=list, blank=True)
    body = models.TextField(blank=True, default="")
    sha256 = models.CharField(max_length=64, blank=True, default="")
    problems = models.JSONField(default=list, blank=True)
    duplicate = models.BooleanField(default=False, help_text="another live file claims the same id")
    present = models.BooleanField(default=True)
    read_at = models.DateTimeField()

    class Meta:
        ordering = ["repo", "canonical_id", "rel_path"]
        constraints = [models.UniqueConstraint(fields=["repo", "rel_path"], name="adr_file_unique")]
        indexes = [models.Index(fields=["repo", "canonical_id"]), models.Index(fields=["status"])]

    def __str__(self) -> str:
        return f"{self.canonical_id}: {self.title}"

    @property
    def path(self) -> str:
        return f"{self.repo.rstrip('/')}/{self.rel_path}"

    @property
    def repo_name(self) -> str:
        return self.repo.rstrip("/").rsplit("/", 1)[-1]


class AdrRelation(models.Model):
    """An edge declared by a record (a cited `RUL-`/`SPEC-` ref is a `related` typed ref)."""

    class Kind(models.TextChoices):
        SUPERSEDES = "supersedes"
        SUPERSEDED_BY = "superseded_by"
        RELATED = "related"
        AMENDS = "amends"

    source = models.ForeignKey(AdrRecord, on_delete=models.CASCADE, related_name="relations")
    kind = models.CharField(max_length=16, choices=Kind.choices)
    target = models.CharField(max_length=255, help_text="canonical id (maybe with #section) or a typed ref")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["source", "kind", "target"], name="adr_relation_unique")
        ]


class AdrAction(models.Model):
    """A person's status change or new record, written to the files and recorded here."""

    class Verb(models.TextChoices):
        ACCEPT = "accept"
        DEPRECATE = "deprecate"
        SUPERSEDE = "supersede"
        CREATE = "create"
        RULE = "rule"
        RESOLVE = "resolve"

    record = models.ForeignKey(AdrRecord, null=True, on_delete=models.SET_NULL, related_name="actions")
    record_id_text = models.CharField(max_length=128)
    verb = models.CharField(max_length=16, choices=Verb.choices)
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    reviewer_name = models.CharField(max_length=150)
    note = models.TextField(blank=True, default="")
    status_before = models.CharField(max_length=16, blank=True, default="")
    status_after = models.CharField(max_length=16, blank=True, default="")
    files = models.JSONField(default=list, help_text="[path, sha before, sha after] per file written")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]


class AdrQuestion(models.Model):
    """A ruling (R<n>) or fork (F<n>) a record puts to a person, as its file says (records/questions.py)."""

    class Kind(models.TextChoices):
        RULING = "ruling"
        FORK = "fork"

    class State(models.TextChoices):
        OPEN = "open"
        RULED = "ruled"
        RESOLVED = "resolved"

    record = models.ForeignKey(AdrRecord, on_delete=models.CASCADE, related_name="questions")
    kind = models.CharField(max_length=8, choices=Kind.choices)
    key = models.CharField(max_length=8)
    text = models.TextField(help_text="the question, or the fork's description")
    options = models.JSONField(default=list, blank=True, help_text="[label, text] per option")
    recommendation = models.TextField(blank=True, default="")
    state = models.CharField(max_length=8, choices=State.choices, default=State.OPEN)
    chosen = models.TextField(
        blank=True, default="", help_text="the option ruled, or the ruling resolving a fork"
    )
    ruled_at = models.CharField(max_length=10, blank=True, default="")
    ruled_by = models.CharField(max_length=150, blank=True, default="")
    quote = models.TextField(blank=True, default="")
    position = models.IntegerField(default=0, help_text="order in the file")
    first_seen = models.DateTimeField(help_text="kept across re-imports: the backlog's age when undated")

    class Meta:
        ordering = ["record", "position"]
        constraints = [models.UniqueConstraint(fields=["record", "kind", "key"], name="adr_question_unique")]
        indexes = [models.Index(fields=["state"])]

    def __str__(self) -> str:
        return f"{self.key} ({self.state})"

    @property
    def is_open(self) -> bool:
        return self.state == self.State.OPEN


class Memory(models.Model):
    """One file of a project's Claude Code auto-memory (`<claude dir>/projects/<slug>/memory/`): the
    `MEMORY.md` index or a topic file. Kept when the file is deleted (marked, never dropped)."""

    INDEX_NAME = "MEMORY.md"

    claude_dir = models.TextField(help_text="the Claude directory whose projects/ holds it: the read root")
    project_slug = models.CharField(max_length=512)
    name = models.CharField(max_length=512, help_text="file name inside memory/")
    path = models.TextField(help_text="absolute path as the agent's tool calls name it")
    present = models.BooleanField(default=True)
    deleted_at = models.DateTimeField(null=True, blank=True)
    file_size = models.BigIntegerField(null=True, blank=True)
    file_mtime_ns = models.BigIntegerField(null=True, blank=True)
    first_seen = models.DateTimeField()
    # A version whose call was not found yet is looked for again once its project's transcripts gain
    # a writing call on this file past this id (a transcript imported after its memory file: a later pass).
    calls_seen = models.BigIntegerField(
        default=0, help_text="the newest transcript entry id its writing calls were looked for up to"
    )

    class Meta:
        ordering = ["project_slug", "name"]
        constraints = [
            models.UniqueConstraint(fields=["claude_dir", "project_slug", "name"], name="memory_unique")
        ]

    def __str__(self) -> str:
        return f"{self.project_slug}/memory/{self.name}"

    @property
    def is_index(self) -> bool:
        return self.name == self.INDEX_NAME


class MemoryVersion(models.Model):
    """One content of a memory file (a new row whenever its hash changes), and the tool call that wrote it."""

    class Match(models.TextChoices):
        EXACT = "exact", "exact: the call writes this content"
        HEURISTIC = "heuristic", "heuristic: a call on this file, content not reproduced"
        NONE = "", "changed outside a recorded session"

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="versions")
    number = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    content = models.TextField()
    mem_name = models.TextField(blank=True, default="", help_text="front matter `name`")
    description = models.TextField(blank=True, default="")
    mem_type = models.CharField(max_length=64, blank=True, default="", help_text="front matter metadata.type")
    frontmatter = models.JSONField(default=dict, blank=True, help_text="every key, kept verbatim")
    quarantine_reason = models.CharField(max_length=64, blank=True, default="")
    quarantine_detail = models.TextField(blank=True, default="")
    seen_at = models.DateTimeField()
    entry = models.ForeignKey(
        "introspect.TranscriptEntry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    session = models.ForeignKey(
        "introspect.Session", null=True, blank=True, on_delete=models.SET_NULL, related_name="memory_versions"
    )
    turn = models.IntegerField(null=True, blank=True, help_text="conversation turn of the call (trunk calls)")
    match = models.CharField(max_length=16, choices=Match.choices, blank=True, default="")

    class Meta:
        ordering = ["memory", "number"]
        constraints = [models.UniqueConstraint(fields=["memory", "number"], name="memory_version_unique")]

    def __str__(self) -> str:
        return f"{self.memory} v{self.number}"


class MemoryAction(models.Model):
    """A person's word on a memory: promoted to knowledge, or marked wrong. The memory file is never edited."""

    class Verb(models.TextChoices):
        PROMOTE = "promote"
        WRONG = "wrong", "marked wrong"

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="actions")
    version = models.ForeignKey(MemoryVersion, on_delete=models.PROTECT, related_name="+")
    verb = models.CharField(max_length=16, choices=Verb.choices)
    knowledge = models.ForeignKey(
        KnowledgeRecord, null=True, blank=True, on_delete=models.SET_NULL, related_name="memory_actions"
    )
    reviewer = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.PROTECT, related_name="+"
    )
    reviewer_name = models.CharField(max_length=150)
    note = models.TextField(blank=True, default="")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-at", "-pk"]
