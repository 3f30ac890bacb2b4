"""ASGI entry point (uvicorn cya_site.asgi:application): the game streams, and the rest."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cya_site.settings")

application = get_asgi_application()

from cya_site.startup import ready_to_serve  # noqa: E402  (needs the settings configured)

ready_to_serve()
