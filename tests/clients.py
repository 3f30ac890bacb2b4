"""API clients for tests."""

from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import token_create


def authenticate(client: APIClient, user: User) -> str:
    """Give ``client`` a fresh bearer token of ``user``; returns the raw key."""
    _, key = token_create(user=user, name="test")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return key
