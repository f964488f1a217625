from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger, knowledge and decision records"

    def ready(self) -> None:
        # Imported here, not at the top: models cannot be imported while the app registry loads
        # (Django's AppConfig.ready contract).
        from introspect.importer import secret_rows, stores
        from introspect.queries import providers
        from ledger.importer import majordomus_ledger
        from ledger.models import AdrRecord, KnowledgeRecord, LedgerEntry, MemoryVersion

        # majordomus ledger.jsonl through the line importer, as introspect registers its own stores
        stores.register_store("mj_ledger", majordomus_ledger.store_lines)
        # By dotted path: the page queries are imported when a page first asks (providers.py says why).
        # Entries under turns, records named; "memory written" at the turn that wrote it; the ledger
        # roots on the Import status page.
        providers.register_session_notes("ledger.queries.stream.session_notes")
        providers.register_session_notes("ledger.queries.memory.session_notes")
        providers.register_import_sources("ledger.queries.import_sources.import_sources")
        # documents whose secrets the Secrets page lists and a reviewer may reveal (SecretFinding.place)
        for model in (LedgerEntry, MemoryVersion, KnowledgeRecord, AdrRecord):
            secret_rows.register_document(model)
