"""factory_boy factories for the models the tests need."""

import factory
from django.utils import timezone

from accounts.keys import key_hash, key_new, key_prefix
from accounts.models import ApiToken, User

DEFAULT_PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory[User]):
    class Meta:
        model = User
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"player{n}")
    email = factory.LazyAttribute(lambda user: f"{user.username}@example.com")
    password = factory.django.Password(DEFAULT_PASSWORD)


class ApiTokenFactory(factory.django.DjangoModelFactory[ApiToken]):
    """A token whose raw key is unknown; use accounts.services.token_create to get one."""

    class Meta:
        model = ApiToken

    class Params:
        key = factory.LazyFunction(key_new)
        revoked = factory.Trait(revoked_at=factory.LazyFunction(timezone.now))

    user = factory.SubFactory(UserFactory)
    name = factory.Sequence(lambda n: f"token {n}")
    prefix = factory.LazyAttribute(lambda token: key_prefix(token.key))
    key_hash = factory.LazyAttribute(lambda token: key_hash(token.key))
