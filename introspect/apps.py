from django.apps import AppConfig


class IntrospectConfig(AppConfig):
    name = "introspect"
    verbose_name = "Session introspection"

    def ready(self) -> None:
        # Imported here, not at the top: models cannot be imported while the app registry loads
        # (Django's AppConfig.ready contract).
        from introspect.importer import entry_rows, event_rows, stores
        from introspect.models import SourceFile

        # The line importer's own stores, registered as ledger registers its majordomus ledger.
        for kind in SourceFile.EVENT_KINDS:
            stores.register_store(kind, event_rows.store_events)
        for kind in SourceFile.TRANSCRIPT_KINDS:
            stores.register_store(kind, entry_rows.store_entries, write=entry_rows.write_entries)
