"""ASGI entry point, kept for a later server-sent-events endpoint (STYLE.md §7)."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")
application = get_asgi_application()
