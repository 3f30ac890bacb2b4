"""ASGI entry point (uvicorn cya_site.asgi:application): the game streams, and the rest.

Django's ASGI application, but with ``cya_site.handlers.Handler``: a stream or a wait
holds no thread while it stays open."""

import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cya_site.settings")
django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application

from cya_site.handlers import Handler  # noqa: E402  (needs the apps loaded)

application = Handler()

from cya_site.startup import ready_to_serve  # noqa: E402  (needs the settings configured)

ready_to_serve()
