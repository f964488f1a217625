from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger, knowledge and decision records"

    def ready(self) -> None:
        from introspect.importer import loader
        from ledger.importer import mj

        loader.register_store("mj_ledger", mj.store_lines)
