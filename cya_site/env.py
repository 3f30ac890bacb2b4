"""Typed readers of environment variables for the settings (cya_site/settings/).

Each reader returns the default when the variable is unset or blank, and raises
``ImproperlyConfigured`` naming the variable when its value cannot be read, so a typo in
a deployment fails at start-up rather than behaving like the default.
"""

import ipaddress
import os
import re

from django.core.exceptions import ImproperlyConfigured

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})
# DRF parses "<count>/<period>" and reads only the period's first letter (s, m, h, d).
_RATE = re.compile(r"^\d+/(s|sec|second|m|min|minute|h|hour|d|day)$")


def _raw(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def env_str(name: str, default: str = "") -> str:
    """The variable's text, or ``default`` when it is unset or blank."""
    value = _raw(name)
    return default if value is None else value


def env_bool(name: str, default: bool) -> bool:
    """The variable read as a boolean: 1/true/yes/on or 0/false/no/off."""
    value = _raw(name)
    if value is None:
        return default
    if value.lower() in _TRUE:
        return True
    if value.lower() in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be a boolean (true/false, 1/0), not {value!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """The variable read as an integer, at least ``minimum`` when given."""
    value = _raw(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {value!r}") from None
    if minimum is not None and number < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {number}")
    return number


def env_list(name: str, default: list[str]) -> list[str]:
    """The variable read as a comma-separated list; blank items are dropped."""
    value = _raw(name)
    if value is None:
        return list(default)
    return [item.strip() for item in value.split(",") if item.strip()]


def env_networks(name: str, default: list[str]) -> list[str]:
    """The variable read as a comma-separated list of IP networks in CIDR notation
    (``127.0.0.0/8,::1/128``); a network with host bits set is refused as a likely typo."""
    networks = env_list(name, default)
    for network in networks:
        try:
            ipaddress.ip_network(network)
        except ValueError as error:
            raise ImproperlyConfigured(
                f"{name} must list networks like 10.0.0.0/8: {error}"
            ) from None
    return networks


def env_rate(name: str, default: str) -> str:
    """The variable read as a DRF throttle rate such as ``20/min`` or ``1000/day``."""
    value = env_str(name, default)
    if not _RATE.match(value):
        raise ImproperlyConfigured(
            f"{name} must be a rate like '20/min' (period s, min, hour or day), not {value!r}"
        )
    return value
