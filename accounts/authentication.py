"""``Authorization: Bearer <token>`` authentication for humans and bots."""

from rest_framework.authentication import BaseAuthentication, get_authorization_header
from rest_framework.exceptions import AuthenticationFailed
from rest_framework.request import Request

from accounts.models import ApiToken, User
from accounts.selectors import token_get_by_key
from accounts.services import token_mark_used


class BearerTokenAuthentication(BaseAuthentication):
    """Authenticate by an API token; unknown, revoked or inactive-user tokens get 401."""

    keyword = b"bearer"

    def authenticate(self, request: Request) -> tuple[User, ApiToken] | None:
        """The token's user and the token, or None when no bearer token was sent."""
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != self.keyword:
            return None
        if len(parts) != 2:
            raise AuthenticationFailed("Malformed Authorization header: use 'Bearer <token>'.")
        try:
            key = parts[1].decode("ascii")
        except UnicodeDecodeError:
            raise AuthenticationFailed("Invalid or revoked token.") from None
        token = token_get_by_key(key=key)
        if token is None or not token.is_active or not token.user.is_active:
            raise AuthenticationFailed("Invalid or revoked token.")
        token_mark_used(token=token)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        """Makes unauthenticated requests 401 (not 403) with a WWW-Authenticate header."""
        return 'Bearer realm="api"'
