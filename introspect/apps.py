from django.apps import AppConfig
from django.db.models.signals import pre_migrate


class IntrospectConfig(AppConfig):
    name = "introspect"
    verbose_name = "Session introspection"

    def ready(self) -> None:
        # Imported here, not at the top: models cannot be imported while the app registry loads
        # (Django's AppConfig.ready contract).
        from introspect.importer import (
            decision_rows,
            deferred_indexes,
            entry_rows,
            event_rows,
            finding_rows,
            line_dictionary,
            stores,
        )
        from introspect.models import SourceFile
        from lib import linepack, packed_text

        packed_text.register()
        # Before `migrate`'s first migration, which may alter an index a killed cold load left out.
        pre_migrate.connect(deferred_indexes.before_migrate, sender=self)

        # A packed line names its zstd dictionary by id; the dictionaries live in the database.
        linepack.set_loader(line_dictionary.load)

        # The line importer's own stores, registered as ledger registers its majordomus ledger.
        for kind in SourceFile.EVENT_KINDS:
            stores.register_store(kind, event_rows.store_events, prepare=event_rows.sort_lines)
        for kind in SourceFile.TRANSCRIPT_KINDS:
            stores.register_store(kind, entry_rows.store_entries, write=entry_rows.write_entries)
        for kind in SourceFile.DECISION_KINDS:
            stores.register_store(
                kind,
                decision_rows.store_decisions,
                write=decision_rows.write_decisions,
                parse=decision_rows.parse_decision_line,
            )
        for kind in SourceFile.FINDING_KINDS:
            stores.register_store(kind, finding_rows.store_findings, parse=finding_rows.parse_finding_line)
