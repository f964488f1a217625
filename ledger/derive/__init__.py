"""Knowledge candidates derived from what waysweb holds, at each episode boundary (candidates.py).

The door is `candidates.derive_due(directory, sessions)`: the pass calls it between importing the
ledger's documents and importing the knowledge directories (waysweb/passes.py), so the candidates it
writes are read in the same pass. The importer never calls it.
"""
