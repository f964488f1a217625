from django.apps import AppConfig


class IntrospectConfig(AppConfig):
    name = "introspect"
    verbose_name = "Session introspection"
