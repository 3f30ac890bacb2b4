"""API token keys: how a raw key is made and how it is stored (only its hash)."""

import hashlib
import secrets

PREFIX_LENGTH = 8


def key_new() -> str:
    """A fresh random key: 43 URL-safe characters (256 bits)."""
    return secrets.token_urlsafe(32)


def key_hash(key: str) -> str:
    """The SHA-256 hex digest stored in place of the key.

    A fast hash is enough: keys carry 256 random bits, so there is nothing to brute-force
    and no need for a slow password hash on every request.
    """
    return hashlib.sha256(key.encode()).hexdigest()


def key_prefix(key: str) -> str:
    """The first characters of a key, stored to let people tell their tokens apart."""
    return key[:PREFIX_LENGTH]
