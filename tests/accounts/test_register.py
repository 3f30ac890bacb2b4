import threading
import time

import pytest
from django.db import IntegrityError, connection, transaction
from rest_framework.test import APIClient

from accounts.models import User
from accounts.services import user_register
from cya_site.errors import DomainError

URL = "/api/v1/auth/register/"
GOOD_PASSWORD = "a sturdy passphrase 42"


@pytest.mark.django_db
def test_registers_a_human_with_a_hashed_password(api: APIClient) -> None:
    response = api.post(URL, {"username": "dave", "password": GOOD_PASSWORD, "email": "d@x.org"})

    assert response.status_code == 201
    assert response.json()["username"] == "dave"
    assert "password" not in response.json()
    user = User.objects.get(username="dave")
    assert user.check_password(GOOD_PASSWORD)
    assert user.password != GOOD_PASSWORD
    assert not user.is_bot
    assert not user.is_staff


@pytest.mark.django_db
def test_email_is_optional(api: APIClient) -> None:
    response = api.post(URL, {"username": "dave", "password": GOOD_PASSWORD})

    assert response.status_code == 201
    assert User.objects.get(username="dave").email == ""


def test_rejects_a_taken_username_in_any_case(api: APIClient, alice: User) -> None:
    response = api.post(URL, {"username": "ALICE", "password": GOOD_PASSWORD})

    assert response.status_code == 409
    assert response.json()["code"] == "username_taken"
    assert User.objects.filter(username__iexact="alice").count() == 1


@pytest.mark.django_db
def test_rejects_a_weak_password_with_the_validators_reasons(api: APIClient) -> None:
    response = api.post(URL, {"username": "dave", "password": "1234"})

    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "weak_password"
    reasons = {reason["code"] for reason in body["details"]["reasons"]}
    assert {"password_too_short", "password_entirely_numeric"} <= reasons
    assert not User.objects.filter(username="dave").exists()


@pytest.mark.django_db
def test_rejects_a_password_like_the_username(api: APIClient) -> None:
    response = api.post(URL, {"username": "dave-the-player", "password": "dave-the-player"})

    assert response.status_code == 422
    assert response.json()["code"] == "weak_password"


@pytest.mark.django_db
def test_rejects_a_username_with_forbidden_characters(api: APIClient) -> None:
    response = api.post(URL, {"username": "dave smith!", "password": GOOD_PASSWORD})

    assert response.status_code == 422
    assert response.json()["code"] == "username_invalid"
    assert not User.objects.exists()


@pytest.mark.django_db
def test_rejects_missing_fields_and_a_bad_email(api: APIClient) -> None:
    response = api.post(URL, {"email": "not-an-email"})

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert set(body["details"]) == {"username", "password", "email"}
    assert body["details"]["username"][0]["code"] == "required"


@pytest.mark.django_db
def test_service_refuses_a_taken_username() -> None:
    user_register(username="Erin", password=GOOD_PASSWORD)

    with pytest.raises(DomainError) as raised:
        user_register(username="erin", password=GOOD_PASSWORD)

    assert raised.value.code == "username_taken"
    assert raised.value.http_status == 409
    assert raised.value.message == "The username “erin” is taken."
    assert raised.value.details == {"username": "erin"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("guest-erin", "Names beginning with “guest-” are kept for guests."),
        (
            "Deleted-Player-7",
            "Names beginning with “deleted-player-” are kept for deleted accounts.",
        ),
        (
            "erin!",
            "Enter a valid username. This value may contain only letters, numbers, "
            "and @/./+/-/_ characters.",
        ),
    ],
)
def test_service_refuses_names_kept_for_others_or_not_allowed_and_says_why(
    username: str, message: str
) -> None:
    with pytest.raises(DomainError) as raised:
        user_register(username=username, password=GOOD_PASSWORD)

    assert (raised.value.code, raised.value.message) == ("username_invalid", message)
    assert not User.objects.filter(username__iexact=username).exists()


@pytest.mark.django_db
def test_service_says_every_reason_a_username_is_not_allowed() -> None:
    with pytest.raises(DomainError) as raised:
        user_register(username="e!" * 76, password=GOOD_PASSWORD)

    assert raised.value.code == "username_invalid"
    assert "Enter a valid username." in raised.value.message
    assert " Ensure this value has at most 150 characters (it has 152)." in raised.value.message


@pytest.mark.django_db
def test_service_refuses_a_taken_username_before_it_judges_the_password() -> None:
    user_register(username="Erin", password=GOOD_PASSWORD)

    with pytest.raises(DomainError) as raised:
        user_register(username="ERIN", password="12345")

    assert raised.value.code == "username_taken"


@pytest.mark.django_db
def test_service_refuses_a_weak_password_with_each_validators_code_and_message() -> None:
    with pytest.raises(DomainError) as raised:
        user_register(username="erin", password="12345")

    reasons = raised.value.details["reasons"]
    assert raised.value.code == "weak_password"
    assert raised.value.message == " ".join(r["message"] for r in reasons)
    assert {
        "code": "password_entirely_numeric",
        "message": "This password is entirely numeric.",
    } in reasons
    assert all(set(r) == {"code", "message"} for r in reasons)


@pytest.mark.django_db
def test_service_keeps_the_email_with_its_domain_in_lower_case() -> None:
    user = user_register(username="erin", password=GOOD_PASSWORD, email="Erin@EXAMPLE.org")

    assert user.email == "Erin@example.org"
    assert user_register(username="fred", password=GOOD_PASSWORD).email == ""


@pytest.mark.django_db
def test_database_refuses_usernames_differing_only_in_case() -> None:
    User.objects.create(username="Frank")

    with pytest.raises(IntegrityError):
        User.objects.create(username="frank")


def waiting_for_me(timeout: float) -> None:
    """Return once another session waits for a lock this one holds (or after ``timeout``)."""
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))"
            )
            if cursor.fetchone()[0]:
                return
            time.sleep(0.01)


@pytest.mark.django_db(transaction=True)
def test_a_registration_that_loses_its_race_to_the_same_name_is_refused_by_name() -> None:
    """Two sign-ups under one name at once: the one whose check ran before the other had
    committed is refused at the database's unique index, with the same answer as a name
    already taken, and writes nothing."""
    inserted = threading.Event()

    def first() -> None:
        try:
            with transaction.atomic():
                User.objects.create_user(username="Zoe", password=GOOD_PASSWORD)
                inserted.set()
                waiting_for_me(timeout=10)  # the loser's insert waits on the index
        finally:
            inserted.set()
            connection.close()

    winner = threading.Thread(target=first)
    winner.start()
    assert inserted.wait(timeout=10)

    with pytest.raises(DomainError) as refused:
        user_register(username="zoe", password=GOOD_PASSWORD)  # checked: not there yet
    winner.join(timeout=10)

    assert refused.value.code == "username_taken"
    assert refused.value.http_status == 409
    assert refused.value.message == "The username “zoe” is taken."
    assert refused.value.details == {"username": "zoe"}
    assert list(User.objects.values_list("username", flat=True)) == ["Zoe"]
