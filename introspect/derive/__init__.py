"""Imported rows → the rows the pages read: sessions, windows, turns, turn rows, subagents.

The one door is `derive.sessions.rebuild_sessions(ids)`: the callers of an import pass (ingest,
serve, the bench, tests) call it after the pass has committed; the importer never does. A session
that only grew at its end is extended (extend.py), any other rebuilt whole (rebuild.py); both write
the same rows (turn_rows.py) from the same session facts (fields.py), read from the session's
events and trunk transcript (session_inputs.py). No file is read inside a derive transaction:
what the files say (subagent meta) is read before it.
"""
