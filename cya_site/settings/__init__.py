"""Django settings: every environment differs only by the variables read here.

The defaults run on a bare machine (SQLite and an embedded Celery transport under
``var/``); production and CI set ``DATABASE_URL`` and ``REDIS_URL``. ``.env.example``
lists every variable.
"""

# The subjects in the order they are computed: each module imports by name what
# it reads from the ones before it, and django_stubs_ext.monkeypatch() runs first (core).
# isort: off
from cya_site.settings.core import *  # noqa: F403
from cya_site.settings.database import *  # noqa: F403
from cya_site.settings.web import *  # noqa: F403
from cya_site.settings.security import *  # noqa: F403
from cya_site.settings.workers import *  # noqa: F403
from cya_site.settings.logs import *  # noqa: F403
from cya_site.settings.api import *  # noqa: F403
from cya_site.settings.metrics import *  # noqa: F403

# isort: on
