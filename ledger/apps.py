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
        from ledger.queries import import_sources, memory, stream

        # majordomus ledger.jsonl through the line importer, as introspect registers its own stores
        stores.register_store("mj_ledger", majordomus_ledger.store_lines)
        providers.register_session_notes(stream.session_notes)  # entries under turns, records named
        providers.register_session_notes(memory.session_notes)  # "memory written" at the turn that wrote it
        providers.register_import_sources(import_sources.import_sources)  # ledger roots on Import status
        # documents whose secrets the Secrets page lists and a reviewer may reveal (SecretFinding.place)
        for model in (LedgerEntry, MemoryVersion, KnowledgeRecord, AdrRecord):
            secret_rows.register_document(model)
