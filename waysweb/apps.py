from django.apps import AppConfig


class WayswebConfig(AppConfig):
    """The project itself as an app: it holds the commands that span both apps (serve, ingest, doctor)."""

    name = "waysweb"
    verbose_name = "waysweb"
