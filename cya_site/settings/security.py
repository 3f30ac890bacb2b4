"""Security: HTTPS, cookies, response headers and the brute-force policy for signing in.

Secure by default when ``DEBUG`` is off: cookies are sent over HTTPS only, browsers are
told to keep to HTTPS (HSTS), every page carries a Content-Security-Policy without
``unsafe-inline`` or ``unsafe-eval`` and a Permissions-Policy that turns off what the
pages never use. Behind a proxy that ends TLS, set ``PROXY_SSL_HEADER`` (the header the
proxy sets, e.g. ``X-Forwarded-Proto``) and ``SSL_REDIRECT=true``; docs/deploy.md has
the whole production environment, under which ``manage.py check --deploy`` is clean.

Every way in (the API's login, the sign-in page, the admin's login) shares one lockout
(django-axes, accounts.lockout): ``LOGIN_FAILURE_LIMIT`` failed sign-ins for one account,
or from one client address, lock it out for ``LOGIN_LOCKOUT_MINUTES``, the right
password included.
"""

import re
from datetime import timedelta

from csp.constants import NONCE, NONE, SELF
from django.core.exceptions import ImproperlyConfigured

from cya_site.env import env_bool, env_int, env_str
from cya_site.settings.core import DEBUG

# --- HTTPS and cookies ------------------------------------------------------------------

SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", not DEBUG)
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"

# HSTS: a year by default in production. HSTS_PRELOAD asks browsers to ship the site in
# their preload lists: only with the operator's own submission (hstspreload.org), and a
# commitment that is slow to undo, so it is off unless set.
SECURE_HSTS_SECONDS = env_int("HSTS_SECONDS", 0 if DEBUG else 31_536_000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("HSTS_PRELOAD", False)
# check --deploy asks for preload (W021); it is the operator's choice, made above.
SILENCED_SYSTEM_CHECKS = ["security.W021"]

SECURE_SSL_REDIRECT = env_bool("SSL_REDIRECT", False)
# Health checks and scrapes come over plain HTTP from inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$", r"^metrics$"]
_proxy_header = env_str("PROXY_SSL_HEADER", "")
if _proxy_header and not re.fullmatch(r"[A-Za-z0-9-]+", _proxy_header):
    raise ImproperlyConfigured(
        f"PROXY_SSL_HEADER must be a header name such as X-Forwarded-Proto, not {_proxy_header!r}"
    )
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_" + _proxy_header.upper().replace("-", "_"), "https") if _proxy_header else None
)

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

# --- Content-Security-Policy (django-csp) and Permissions-Policy ------------------------

# Scripts and styles come from the site's static files only (STYLE.md: no inline script or
# style attribute); an inline script would need the request's nonce. Images include the
# QR codes and charts (inline SVG) and data: URIs.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": [SELF],
        "script-src": [SELF, NONCE],
        "style-src": [SELF],
        "img-src": [SELF, "data:"],
        "font-src": [SELF],
        "connect-src": [SELF],
        "object-src": [NONE],
        "base-uri": [SELF],
        "form-action": [SELF],
        "frame-ancestors": [NONE],
    },
}

PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "accelerometer",
        "camera",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "payment",
        "usb",
    )
}

# --- One brute-force policy for every sign-in (django-axes) -----------------------------

AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: a locked-out sign-in never checks a password
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # each on its own: an account, an address
AXES_RESET_ON_SUCCESS = True
AXES_CLIENT_IP_CALLABLE = "cya_site.throttling.client_address"  # as the rate limits see it
AXES_LOCKOUT_CALLABLE = "accounts.lockout.lockout_response"
AXES_DISABLE_ACCESS_LOG = True  # failures only: no row for every successful sign-in
AXES_VERBOSE = False
