"""Ledger epochs, knowledge candidates and decision records.

The tables arrive with the issues that import them (the session ledger and knowledge review,
then decision records); the app exists now so that URLs, templates and navigation have their
final home from the first release.
"""
