"""WSGI entry point; `manage.py serve` runs it under waitress."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "waysweb.settings")
application = get_wsgi_application()
