"""A person's acts, written to the files first and audited with them (knowledge-and-records.md §6, §13).

One module a kind of record: knowledge candidates (knowledge.py), decision records (records.py) and
Claude Code's auto-memory (memory.py); who acts and the two ways an act is turned down are shared
(acts.py). An agent never accepts, promotes or rules: only a logged-in person reaches these functions.
"""
