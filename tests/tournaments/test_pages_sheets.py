"""The phone score sheet: entering rounds, confirming, disputing, correcting, polling.

Every refusal is shown beside its field with the API's wording and what was typed kept;
a resent form records a round once; a player never enters another table's scores."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from accounts.models import User
from games.models import Game
from tests.pages import BUDGET, text, transfer_size
from tests.tournaments.conftest import QUICK, Club, recorded_game
from tournaments import recording
from tournaments.models import ScoreRecord, ScoreVote

pytestmark = pytest.mark.django_db
CLASSIC = QUICK.with_options(ending="classic")
HTMX = {"HX-Request": "true"}


def as_user(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def entry(game: Game, *thousands: str, key: str = "k1", number: int = 1) -> dict[str, str]:
    fields = {f"seat_{n}": v for n, v in enumerate(thousands)}
    return {**fields, "key": key, "round": str(number)}


@pytest.fixture
def table(club: Club, alice: User) -> Game:
    """alice, bob and the guest Dora at a first-to-$1,000,000 table."""
    return recorded_game(club, alice, ["Alice", "Bob", "Dora"], rules=CLASSIC)


def test_the_sheet_shows_the_table_by_name_and_stays_small_and_cheap(
    table: Game, alice: User, django_assert_max_num_queries: Any
) -> None:
    client = as_user(alice)
    with django_assert_max_num_queries(16):
        response = client.get(f"/sheets/{table.pk}/")

    assert response.status_code == 200
    page = text(response.content)
    assert all(name in page for name in ("Alice", "Bob", "Dora"))
    assert "Round 1" in page
    assert 'inputmode="numeric"' in response.content.decode()
    assert 'Record round <span class="round-number">1</span>' in response.content.decode()
    assert transfer_size(client, f"/sheets/{table.pk}/") < BUDGET


def test_a_signed_out_visitor_is_asked_to_sign_in_first(client: Client, table: Game) -> None:
    response = client.get(f"/sheets/{table.pk}/")

    assert response.status_code == 302
    assert response["Location"] == f"/sign-in/?next=/sheets/{table.pk}/"


def test_a_player_enters_a_round_in_thousands_and_the_tallies_follow(
    table: Game, alice: User
) -> None:
    response = as_user(alice).post(f"/sheets/{table.pk}/rounds/", entry(table, "300", "150", "0"))

    assert response.status_code == 302
    record = ScoreRecord.objects.get(game=table)
    assert record.dollars == [300_000, 150_000, 0]
    page = text(as_user(alice).get(f"/sheets/{table.pk}/").content)
    assert "$300,000" in page
    assert "Still to confirm: Bob." in page


def test_a_full_amount_typed_in_dollars_is_read_as_dollars(table: Game, alice: User) -> None:
    as_user(alice).post(f"/sheets/{table.pk}/rounds/", entry(table, "300,000", "$150000", "10"))

    assert ScoreRecord.objects.get(game=table).dollars == [300_000, 150_000, 10_000]


@pytest.mark.parametrize(
    ("advanced", "typed", "message"),
    [
        ({}, ("300", "151", "0"), "No stack of this deck is worth $151,000"),
        # 1500 meant as $1,500,000: the real reason is the deck's total, not the step
        ({}, ("300", "1500", "0"), "No seat can hold $1,500,000: the whole deck is worth $1,"),
        # each seat fits the deck alone, but together they need 5 of its 2 Penny Jars:
        # said beside the seat the deck runs out at
        (
            {"penny_jar": True},
            ("7", "7", "6"),
            "need at least 5 cards worth $1,000 (Penny Jar), but the deck holds only 2",
        ),
    ],
)
def test_a_seat_s_refusal_is_beside_its_field_with_the_apis_words_and_the_typing_kept(
    club: Club, alice: User, advanced: dict[str, bool], typed: tuple[str, ...], message: str
) -> None:
    rules = CLASSIC.with_options(advanced=advanced)
    table = recorded_game(club, alice, ["Alice", "Bob", "Dora"], rules=rules)
    response = as_user(alice).post(
        f"/sheets/{table.pk}/rounds/", entry(table, *typed), headers=HTMX
    )

    assert response.status_code == 400
    html = response.content.decode()
    assert 'id="id_seat_1_error"' in html
    assert message in text(html)
    assert f'value="{typed[0]}"' in html
    assert f'value="{typed[1]}"' in html
    assert not ScoreRecord.objects.exists()


def test_a_german_sheet_says_the_deck_s_refusal_in_german_with_german_dollars(
    club: Club, alice: User
) -> None:
    alice.language = "de"
    alice.save(update_fields=["language"])
    rules = CLASSIC.with_options(edition="de2023", advanced={"penny_jar": True})
    table = recorded_game(club, alice, ["Alice", "Bob", "Dora"], rules=rules)
    response = as_user(alice).post(
        f"/sheets/{table.pk}/rounds/", entry(table, "7", "7", "6"), headers=HTMX
    )

    assert response.status_code == 400
    assert (
        "Zusammen brauchen die Plätze mindestens 5 Karten im Wert von 1.000 $ (Münzenglas), "
        "aber das Kartenspiel enthält nur 2."
    ) in text(response.content)


def test_a_deck_total_refusal_is_said_above_the_fields(table: Game, alice: User) -> None:
    response = as_user(alice).post(
        f"/sheets/{table.pk}/rounds/", entry(table, "1000", "500", "0"), headers=HTMX
    )

    assert response.status_code == 400
    assert "but the whole deck is worth $1,385,000" in text(response.content)
    assert not ScoreRecord.objects.exists()


def test_a_double_tap_or_a_resent_form_records_the_round_once(table: Game, alice: User) -> None:
    client = as_user(alice)
    form = entry(table, "300", "150", "0", key="tap")

    first = client.post(f"/sheets/{table.pk}/rounds/", form, headers=HTMX)
    again = client.post(f"/sheets/{table.pk}/rounds/", form, headers=HTMX)

    assert first.status_code == again.status_code == 200
    assert ScoreRecord.objects.filter(game=table).count() == 1


def test_a_round_entered_meanwhile_on_another_phone_is_not_entered_twice(
    table: Game, alice: User, bob: User
) -> None:
    as_user(bob).post(f"/sheets/{table.pk}/rounds/", entry(table, "300", "150", "0", key="b"))
    response = as_user(alice).post(
        f"/sheets/{table.pk}/rounds/", entry(table, "100", "50", "0", key="a"), headers=HTMX
    )

    assert response.status_code == 409
    assert "The next round is round 2" in text(response.content)
    assert 'name="round" value="2"' in response.content.decode()
    assert ScoreRecord.objects.filter(game=table).count() == 1


def test_players_confirm_and_dispute_from_their_own_phones(
    table: Game, alice: User, bob: User, olga: User
) -> None:
    recording.round_record(game=table, by=alice, dollars=[300_000, 150_000, 0])
    refused = as_user(bob).post(
        f"/sheets/{table.pk}/rounds/1/vote/",
        {"v1-verdict": "dispute", "v1-reason": ""},
        headers=HTMX,
    )
    disputed = as_user(bob).post(
        f"/sheets/{table.pk}/rounds/1/vote/",
        {"v1-verdict": "dispute", "v1-reason": "Gold was mine"},
        headers=HTMX,
    )

    assert refused.status_code == 400
    assert 'id="id_v1-reason_error"' in refused.content.decode()
    assert disputed.status_code == 200
    assert "Disputed by bob: “Gold was mine”" in text(disputed.content)
    assert ScoreRecord.objects.get(game=table).status == ScoreRecord.Status.DISPUTED

    settled = as_user(olga).post(
        f"/sheets/{table.pk}/rounds/1/correct/",
        {"c1-seat_0": "150", "c1-seat_1": "300", "c1-seat_2": "0", "c1-reason": "Gold was Bob's"},
        headers=HTMX,
    )
    assert settled.status_code == 200
    page = text(settled.content)
    assert "olga corrected round 1" in page
    assert "Gold was Bob's" in page
    current = ScoreRecord.objects.get(game=table, superseded_by__isnull=True)
    assert (current.dollars, current.status) == ([150_000, 300_000, 0], "confirmed")


def test_an_organiser_settles_a_dispute_as_entered(
    table: Game, alice: User, bob: User, olga: User
) -> None:
    record = recording.round_record(game=table, by=alice, dollars=[300_000, 150_000, 0]).record
    recording.round_vote(record=record, by=bob, verdict="dispute", reason="not sure")

    as_user(olga).post(f"/sheets/{table.pk}/rounds/1/vote/", {"v1-verdict": "confirm"})

    record.refresh_from_db()
    assert record.status == ScoreRecord.Status.CONFIRMED


def test_a_correction_needs_a_reason_and_keeps_what_was_typed(
    table: Game, alice: User, olga: User
) -> None:
    recording.round_record(game=table, by=alice, dollars=[300_000, 150_000, 0])

    response = as_user(olga).post(
        f"/sheets/{table.pk}/rounds/1/correct/",
        {"c1-seat_0": "155", "c1-seat_1": "300", "c1-seat_2": "0", "c1-reason": ""},
        headers=HTMX,
    )

    assert response.status_code == 400
    assert 'id="id_c1-reason_error"' in response.content.decode()
    assert 'value="155"' in response.content.decode()
    assert ScoreRecord.objects.filter(game=table).count() == 1


def test_a_player_cannot_enter_or_correct_another_tables_scores(
    club: Club, table: Game, carol: User, alice: User
) -> None:
    recording.round_record(game=table, by=alice, dollars=[300_000, 150_000, 0])
    client = as_user(carol)  # plays in the league, not at this table

    page = text(client.get(f"/sheets/{table.pk}/").content)
    entered = client.post(f"/sheets/{table.pk}/rounds/", entry(table, "1", "0", "0", number=2))
    voted = client.post(f"/sheets/{table.pk}/rounds/1/vote/", {"v1-verdict": "confirm"})
    corrected = client.post(
        f"/sheets/{table.pk}/rounds/1/correct/",
        {"c1-seat_0": "0", "c1-seat_1": "0", "c1-seat_2": "0", "c1-reason": "mine"},
    )

    assert "The table's players, or an organiser, enter the rounds." in page
    assert "Confirm round 1" not in page
    assert entered.status_code == voted.status_code == corrected.status_code == 403
    assert ScoreRecord.objects.filter(game=table).count() == 1
    assert ScoreVote.objects.count() == 1


def test_the_poll_answers_nothing_until_something_changes(table: Game, alice: User) -> None:
    client = as_user(alice)
    first = client.get(f"/sheets/{table.pk}/live/?v=-1&entry=1")
    version = first.content.decode().split("?v=")[1].split("&")[0]

    unchanged = client.get(f"/sheets/{table.pk}/live/?v={version}&entry=1")
    recording.round_record(game=table, by=alice, dollars=[300_000, 150_000, 0])
    changed = client.get(f"/sheets/{table.pk}/live/?v={version}&entry=1")

    assert first.status_code == 200
    assert unchanged.status_code == 204
    assert changed.status_code == 200
    assert "$300,000" in text(changed.content)
    assert 'hx-swap-oob="true"' in changed.content.decode()  # a fresh form for round 2


def test_the_end_of_the_game_is_shown_as_the_rules_decide(table: Game, alice: User) -> None:
    for dollars in ([500_000, 150_000, 0], [500_000, 300_000, 100_000]):
        recording.round_record(game=table, by=alice, dollars=dollars)

    page = text(as_user(alice).get(f"/sheets/{table.pk}/").content)

    assert "Game over." in page
    assert "Alice wins." in page
    assert "The game has ended: no more rounds." in page
