"""Ledger, knowledge review and decision records: routes arrive with their issues."""

app_name = "ledger"
urlpatterns: list = []
