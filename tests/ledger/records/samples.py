"""Decision records as their formats write them, shared by the parser, writer and new-record tests."""

from __future__ import annotations

import difflib

NYGARD_OLD = b"""# 2. Implement as shell scripts

Date: 2016-02-12

## Status


Superceded by [3. Use Go for the command line tool](0003-use-go-for-the-command-line-tool.md)

## Context

ADRs are plain text files, so a tool that creates and links them can be a handful of scripts.

## Decision

ADR tools will be implemented as a collection of Bash scripts.

## Consequences

Portable across Unix-like systems; Windows needs Cygwin or WSL.
"""

NYGARD_NEW = b"""# 3. Use Go for the command line tool

Date: 2016-03-01

## Status

Accepted

Supercedes [2. Implement as shell scripts](0002-implement-as-shell-scripts.md)

Amended by [5. Ship a Windows build](0005-ship-a-windows-build.md)

## Context

The scripts break on Windows and on BSD sed.

```markdown
## Status

Rejected
```

## Decision

Rewrite the tool in Go.

## Consequences

One static binary per platform.
"""

MADR4 = b"""---
status: "superseded by ADR-0012"
date: 2024-05-02
decision-makers: [Alice Example, Bob Example]
consulted: Platform team
informed: Everyone
---

# Use PostgreSQL for the ledger store

## Context and Problem Statement

The ledger outgrew one SQLite file shared by three importers.

## Decision Drivers

* concurrent writers
* point-in-time recovery

## Considered Options

* PostgreSQL
* SQLite in WAL mode

## Decision Outcome

Chosen option: "PostgreSQL", because it is the only option that handles concurrent writers.

### Consequences

* Good, because backups are a solved problem.
* Bad, because local development needs a server.

## More Information

See the capacity notes.
"""

MADR4_ACCEPTED = b"""---
status: accepted
date: 2024-01-10
---

# Keep importer offsets in the same transaction as the rows

## Context and Problem Statement

A crash between the row insert and the offset update duplicated lines.

## Decision Outcome

Chosen option: "one transaction".
"""

MADR2 = b"""# Use Markdown Architectural Decision Records

* Status: accepted <!-- optional -->
* Deciders: Oliver Kopp, Olaf Zimmermann
* Date: 2017-12-13

Technical Story: https://example.org/issues/1

## Context and Problem Statement

We want to record architectural decisions made in this project.

## Considered Options

* MADR 2.1.2
* Michael Nygard's template

## Decision Outcome

Chosen option: "MADR 2.1.2", because it is lean and structured.

## Links

* Refined by [ADR-0005](0005-example.md)
"""

LOG4BRAINS = b"""# Use Log4brains to manage the ADRs

- Status: superseded by [20210101-use-adr-manager](20210101-use-adr-manager.md)
- Date: 2020-09-24
- Tags: dev-tools, doc

## Context and Problem Statement

We want to record architectural decisions made in this project and publish them.

## Decision Outcome

Chosen option: "Log4brains", because it renders a static site from Markdown.
"""

LOG4BRAINS_NEW = b"""# Use adr-manager

- Status: accepted
- Date: 2021-01-01
- Tags: dev-tools

## Context and Problem Statement

Log4brains' editor never shipped.

## Decision Outcome

Chosen option: "adr-manager".
"""

MAJORDOMUS = b"""---
schema: adr/v1
id: adr-0091
kind: adr
title: Knowledge is derived at the episode boundary and a person promotes it
status: accepted
date: 2026-09-11
tags: [knowledge, review]
supersedes: [adr-0058]
related:
  - rule:knowledge-is-reviewed
  - file:crates/knowledge/src/derive.rs
  - RUL-035
provenance:
  origin: extracted
  derived_from:
    - session:s-20260911000001-aaaa
---

# Context

Candidates written mid-session were rewritten three times before the episode ended.

# Decision

Derive candidates at the episode boundary only; a person promotes them.

# Consequences

Nothing reaches `verified` without a reviewer.

# Alternatives rejected

Deriving on every turn.
"""

AGENTWAYS_V0 = b"""---
status: Accepted            # Draft | Proposed | Accepted | Superseded | Rejected | Deprecated
date: 2026-08-06
deciders:
  - aaron
  - claude
related:
  - ADR-110
  - 302
  - SPEC-106
supersedes: [ADR-099]
---

# ADR-112: Session ledger entries are written at phase boundaries

## Context

Sessions lost their thread after compaction.

## Decision

Write a ledger entry at each phase boundary.

## Consequences

### Positive

Resumes start from the last entry.

### Negative

One more file per phase.

## Alternatives Considered

- **Write on every turn** \xe2\x80\x94 Rejected because it floods the directory.
"""

AGENTWAYS_V1 = b"""---
contract: adr/v1
kind: decision
verb: change
capability: adr
status: accepted
date: 2026-09-02
basis:
  - operator
  - {operator: aaron, level: explicit, said: "numbers are identity", via: chat}
enacted: 4f2c1aa
amends: [ADR-306#6]
supersedes: [ADR-167#4]
agent: {name: claude, model: opus}
related: [ADR-303]
---

# ADR-304.1: A record's number is its permanent identity

## Context

Records moved between folders and changed slugs.

## Decision

The number never changes; folders follow classification.
"""

AGENTWAYS_PARTIAL = b"""---
status: Accepted
date: 2025-11-01
superseded_by: [ADR-304#4]
---

# ADR-167: ADR folders and numbering

## Context

Four areas.
"""

ARCHIVED = b"""---
contract: adr/v1
kind: decision
status: superseded
superseded_by: [ADR-310]
---

# ADR-201: Records live in one flat folder

> **Archived 2026-07-01** \xe2\x80\x94 folders follow classification. Superseded by ADR-310.

## Context

One folder was enough for forty records.
"""


# Records with rulings (R<n>) and forks (F<n>): open, ruled and mixed (records/questions.py).
Q_NYGARD = """# 14. Contract amendments for v1 records

Date: 2026-10-01

## Status

Proposed

## Context

The contract changes.

## Rulings

Four points need a ruling:

- **R1** Where does a ruling live?
  - A) in the record's own file
  - B) in the database only
  Recommendation: A, the file is the record.
- **R2:** Who may rule?
  RULED 2026-10-11 — option B (aaron: "b")

## Forks found while amending the contract

- F1 Keep v0 records as they are. Resolved by R2.
- F2 Archive the old INDEX.md.

Rulings cited: RUL-035. Specs cited: SPEC-106.
""".encode()

Q_MADR_OPEN = b"""---
status: proposed
date: 2026-09-20
decision-makers: [aaron]
---

# Choose a queue

## Context and Problem Statement

Jobs pile up.

## Considered Options

* Redis streams
* PostgreSQL SKIP LOCKED

## Decision Outcome

To be decided.
"""

Q_MADR_RULED = Q_MADR_OPEN.replace(
    b"To be decided.", b'Chosen option: "PostgreSQL SKIP LOCKED", because one database.'
)

Q_LOG4BRAINS = b"""# Pick a static site generator

- Status: accepted
- Date: 2021-01-01
- Deciders: maria, tom
- Tags: docs

## Considered Options

* Log4brains
* Docusaurus

## Decision Outcome

Chosen option: "Log4brains", because it renders Markdown.
"""

Q_MAJORDOMUS = b"""---
schema: adr/v1
id: adr-0020
kind: adr
title: Rulings are a person's act
status: proposed
date: 2026-10-02
---

# Context

Agents propose.

# Open questions

## R1 Does a ruling need a reason?

A. yes, always
B. only for option C

Recommendation: option A

## F1 Whether a fork can be reopened
"""

Q_AGENTWAYS_V1 = """---
contract: adr/v1
kind: decision
verb: change
status: proposed
---

# ADR-305: Rulings travel with the record

## Rulings

1. R1 — Where are rulings kept? RULED 2026-10-11 — option "in the file" (ops: "the file travels")
2. R2 — Who signs?
   Recommendation: the operator

## Forks

- F1 two signatures?
  RESOLVED 2026-10-12 — by R1 (ops: "one is enough")
""".encode()


def changed(before: bytes, after: bytes) -> tuple[list[str], list[str]]:
    """(removed lines, added lines) between two versions of a file."""
    old, new = before.decode().split("\n"), after.decode().split("\n")
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += old[i1:i2]
            added += new[j1:j2]
    return removed, added
