"""WSGI entry point (gunicorn cya_site.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cya_site.settings")

application = get_wsgi_application()

from cya_site.startup import ready_to_serve  # noqa: E402  (needs the settings configured)

ready_to_serve()
