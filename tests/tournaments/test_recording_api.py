"""The score-entry flow over HTTP: a night's real table from opening to exports.

Each bad request is checked for its status, its stable ``code`` and an unchanged
database; the good path is checked through the ledger, the standings (now and as of a
past moment), the public change log and the CSV and JSON exports.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Callable
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from accounts.models import User
from games.models import Game
from tests.factories import UserFactory
from tests.races import Outcome, race_threads
from tests.tournaments.conftest import QUICK, Club, recorded_game, settled_game
from tournaments.models import ChangeLog, Result, ScoreRecord, ScoreVote

Clients = Callable[[User], APIClient]


def rounds_url(game: Game | int, tail: str = "") -> str:
    pk = game if isinstance(game, int) else game.pk
    return f"/api/v1/recorded-games/{pk}/rounds/{tail}"


def counts() -> tuple[int, int, int, int]:
    return (
        ScoreRecord.objects.count(),
        ScoreVote.objects.count(),
        ChangeLog.objects.count(),
        Result.objects.count(),
    )


def expect(response: Any, status: int, code: str) -> dict[str, Any]:
    body: dict[str, Any] = response.json()
    assert (response.status_code, body["code"]) == (status, code), body
    assert body["message"]
    return body


def test_a_table_records_a_game_round_by_round_through_the_api(
    club: Club, alice: User, bob: User, carol: User, api_as: Clients
) -> None:
    players = [club.players[n].pk for n in ("Alice", "Bob", "Carol", "Dora")]
    opened = api_as(alice).post(
        f"/api/v1/nights/{club.night.pk}/recorded/",
        {"competitors": players, "rules": {"preset": "2021", "options": {"target": 500_000}}},
        format="json",
    )
    assert opened.status_code == 201, opened.json()
    game = Game.objects.get(pk=opened.json()["game"])
    assert (game.mode, game.seat_count) == (Game.Mode.RECORDED, 4)

    entered = api_as(alice).post(
        rounds_url(game), {"dollars": [300_000, 100_000, 50_000, 0], "round": 1}, format="json"
    )
    assert entered.status_code == 201, entered.json()
    body = entered.json()
    assert (body["round_number"], body["kind"], body["status"]) == (1, "enter", "pending")
    assert body["actor"] == "alice"
    assert [v["voter"] for v in body["votes"]] == ["alice"]

    for user in (bob, carol):
        voted = api_as(user).post(
            rounds_url(game, "1/votes/"), {"verdict": "confirm"}, format="json"
        )
        assert voted.status_code == 200, voted.json()
    assert voted.json()["status"] == "confirmed"

    api_as(bob).post(
        rounds_url(game), {"dollars": [250_000, 100_000, 0, 0], "round": 2}, format="json"
    )
    for user in (alice, carol):
        api_as(user).post(rounds_url(game, "2/votes/"), {"verdict": "confirm"}, format="json")
    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.winners == [0]  # $550,000 passes the $500,000 target

    sheet = api_as(carol).get(rounds_url(game)).json()
    assert [(r["round_number"], r["status"]) for r in sheet] == [(1, "confirmed"), (2, "confirmed")]
    standings = api_as(carol).get(f"/api/v1/competitions/{club.competition.pk}/standings/")
    assert [r["name"] for r in standings.json()][:1] == ["Alice"]


# --- bad input: clear codes, nothing written --------------------------------------------


@pytest.mark.parametrize(
    ("dollars", "status", "code"),
    [
        ([7_000, 0, 0], 422, "impossible_dollars"),
        ([10_000, 20_000], 422, "wrong_seat_count"),
        ([10_000, 20_000, 30_000, 40_000], 422, "wrong_seat_count"),
        ([700_000, 690_000, 0], 422, "round_total_too_high"),
        ([10_000, -10_000, 0], 400, "invalid"),  # refused by the input serializer
        ([10_000, 100_000_001, 0], 400, "invalid"),  # huge
        ([10_000, "lots", 0], 400, "invalid"),
        ([10_000], 400, "invalid"),  # fewer than two seats is never a table
        ([10_000] * 9, 400, "invalid"),
        (None, 400, "invalid"),
    ],
)
def test_bad_dollars_get_a_json_error_with_a_stable_code_and_write_nothing(
    club: Club, alice: User, api_as: Clients, dollars: Any, status: int, code: str
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob", "Carol"])
    before = counts()
    response = api_as(alice).post(rounds_url(game), {"dollars": dollars, "round": 1}, format="json")
    body = expect(response, status, code)
    if status == 422:
        assert body["details"]
    assert counts() == before


def test_more_penny_jars_than_the_deck_holds_get_a_json_error_naming_the_card(
    club: Club, alice: User, api_as: Clients
) -> None:
    jars = QUICK.with_options(advanced={"penny_jar": True})
    game = recorded_game(club, alice, ["Alice", "Bob", "Carol"], rules=jars)
    before = counts()
    dollars = [7_000, 7_000, 6_000]
    response = api_as(alice).post(rounds_url(game), {"dollars": dollars, "round": 1}, format="json")
    body = expect(response, 422, "not_enough_cards")
    assert body["details"] == {
        "seat": 1,
        "seats": [0, 1, 2],
        "value": 1_000,
        "cards": ["penny_jar"],
        "needed": 5,
        "deck_count": 2,
    }
    assert body["message"] == (
        "Together the seats need at least 5 cards worth $1,000 (Penny Jar), "
        "but the deck holds only 2."
    )
    assert counts() == before


def test_unknown_fields_and_malformed_json_are_refused(
    club: Club, alice: User, api_as: Clients
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"])
    client = api_as(alice)
    before = counts()
    extra = client.post(
        rounds_url(game), {"dollars": [10_000, 0], "round": 1, "seat": 3}, format="json"
    )
    assert expect(extra, 400, "invalid")["details"]["seat"][0]["code"] == "unknown_field"
    broken = client.post(rounds_url(game), "{not json", content_type="application/json")
    expect(broken, 400, "malformed_json")
    assert counts() == before


def test_a_round_after_the_game_ended_is_refused(club: Club, olga: User, api_as: Clients) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    before = counts()
    response = api_as(olga).post(
        rounds_url(game), {"dollars": [10_000, 0], "round": 2}, format="json"
    )
    assert expect(response, 422, "game_already_ended")["details"] == {"ended_after": 1}
    assert counts() == before


def test_players_not_at_the_table_and_strangers_cannot_enter_or_vote(
    club: Club, alice: User, carol: User, api: APIClient, api_as: Clients
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"])
    api_as(alice).post(rounds_url(game), {"dollars": [10_000, 0], "round": 1}, format="json")
    before = counts()
    entry = {"dollars": [10_000, 0], "round": 2}
    vote = {"verdict": "confirm"}
    expect(api_as(carol).post(rounds_url(game), entry, format="json"), 403, "not_seated")
    expect(api_as(carol).post(rounds_url(game, "1/votes/"), vote, format="json"), 403, "not_seated")
    expect(api.post(rounds_url(game), entry, format="json"), 401, "not_authenticated")
    expect(api.post(rounds_url(game, "1/votes/"), vote, format="json"), 401, "not_authenticated")
    assert counts() == before


def test_double_votes_and_reasonless_disputes_are_refused(
    club: Club, alice: User, bob: User, api_as: Clients
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob", "Carol"])
    api_as(alice).post(rounds_url(game), {"dollars": [10_000, 0, 0], "round": 1}, format="json")
    votes = rounds_url(game, "1/votes/")
    before = counts()
    expect(api_as(alice).post(votes, {"verdict": "confirm"}, format="json"), 409, "already_voted")
    no_reason = api_as(bob).post(votes, {"verdict": "dispute"}, format="json")
    assert expect(no_reason, 422, "reason_required")["details"] == {"field": "reason"}
    expect(api_as(bob).post(votes, {"verdict": "maybe"}, format="json"), 400, "invalid")
    assert counts() == before
    ok = api_as(bob).post(votes, {"verdict": "dispute", "reason": "Gold was mine"}, format="json")
    assert ok.json()["status"] == "disputed"


def test_votes_and_corrections_on_a_round_that_does_not_exist_are_404(
    club: Club, olga: User, alice: User, api_as: Clients
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"])
    expect(
        api_as(alice).post(rounds_url(game, "1/votes/"), {"verdict": "confirm"}, format="json"),
        404,
        "no_such_round",
    )
    correction = {"dollars": [10_000, 0], "reason": "typo"}
    expect(
        api_as(olga).post(rounds_url(game, "1/correction/"), correction, format="json"),
        404,
        "no_such_round",
    )


def test_a_dispute_freezes_entry_until_the_organiser_corrects_through_the_api(
    club: Club, olga: User, alice: User, bob: User, api_as: Clients
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=club_classic())
    api_as(alice).post(rounds_url(game), {"dollars": [300_000, 100_000], "round": 1}, format="json")
    api_as(bob).post(
        rounds_url(game, "1/votes/"), {"verdict": "dispute", "reason": "I had more"}, format="json"
    )
    before = counts()
    frozen = api_as(alice).post(
        rounds_url(game), {"dollars": [10_000, 0], "round": 2}, format="json"
    )
    expect(frozen, 409, "round_disputed")
    assert counts() == before

    not_organiser = api_as(bob).post(
        rounds_url(game, "1/correction/"),
        {"dollars": [300_000, 200_000], "reason": "mine"},
        format="json",
    )
    expect(not_organiser, 403, "permission_denied")
    no_reason = api_as(olga).post(
        rounds_url(game, "1/correction/"), {"dollars": [300_000, 200_000]}, format="json"
    )
    expect(no_reason, 400, "invalid")
    assert counts() == before

    corrected = api_as(olga).post(
        rounds_url(game, "1/correction/"),
        {"dollars": [300_000, 200_000], "reason": "checked the photo"},
        format="json",
    )
    assert corrected.status_code == 201, corrected.json()
    assert (corrected.json()["kind"], corrected.json()["status"]) == ("correct", "confirmed")
    sheet = api_as(bob).get(rounds_url(game)).json()
    assert [(r["kind"], r["superseded"]) for r in sheet] == [("enter", True), ("correct", False)]
    assert sheet[0]["dollars"] == [300_000, 100_000]  # the original is kept as entered
    again = api_as(alice).post(
        rounds_url(game), {"dollars": [10_000, 0], "round": 2}, format="json"
    )
    assert again.status_code == 201


def club_classic() -> Any:
    from games.engine import RuleSet

    return RuleSet.preset("2021")


def test_votes_after_a_round_was_removed_and_entered_again_reach_the_new_entry(
    club: Club, olga: User, alice: User, bob: User, api_as: Clients
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=club_classic())
    api_as(alice).post(rounds_url(game), {"dollars": [300_000, 100_000], "round": 1}, format="json")
    removed = api_as(olga).post(
        rounds_url(game, "1/correction/"),
        {"dollars": None, "reason": "that was a practice game"},
        format="json",
    )
    assert removed.json()["kind"] == "void"
    api_as(alice).post(rounds_url(game), {"dollars": [200_000, 100_000], "round": 1}, format="json")
    vote = api_as(bob).post(rounds_url(game, "1/votes/"), {"verdict": "confirm"}, format="json")
    assert vote.status_code == 200, vote.json()
    assert (vote.json()["kind"], vote.json()["dollars"]) == ("enter", [200_000, 100_000])
    assert vote.json()["status"] == "confirmed"


def test_an_impossible_correction_is_refused_and_changes_nothing(
    club: Club, olga: User, api_as: Clients
) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    before = counts()
    response = api_as(olga).post(
        rounds_url(game, "1/correction/"),
        {"dollars": [100_000, 7_000], "reason": "typo"},
        format="json",
    )
    assert expect(response, 422, "impossible_dollars")["details"]["seat"] == 1
    assert counts() == before


# --- idempotency ------------------------------------------------------------------------------


def test_an_entry_retried_with_its_idempotency_key_is_applied_once(
    club: Club, alice: User, bob: User, api_as: Clients
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=club_classic())
    client = api_as(alice)
    entry = {"dollars": [100_000, 50_000], "round": 1}
    first = client.post(rounds_url(game), entry, format="json", HTTP_IDEMPOTENCY_KEY="sheet-7")
    assert (first.status_code, first.json()["replayed"]) == (201, False)
    before = counts()
    retry = client.post(rounds_url(game), entry, format="json", HTTP_IDEMPOTENCY_KEY="sheet-7")
    assert (retry.status_code, retry.json()["replayed"]) == (200, True)
    assert {**retry.json(), "replayed": False} == first.json()
    assert counts() == before
    stolen = api_as(bob).post(
        rounds_url(game), entry, format="json", HTTP_IDEMPOTENCY_KEY="sheet-7"
    )
    expect(stolen, 409, "idempotency_key_reused")
    assert counts() == before
    fresh = client.post(
        rounds_url(game), {**entry, "round": 2}, format="json", HTTP_IDEMPOTENCY_KEY="sheet-8"
    )
    assert fresh.json()["round_number"] == 2
    assert (fresh.status_code, fresh.json()["replayed"]) == (201, False)


def test_an_entry_refuses_an_idempotency_key_longer_than_100_characters_as_actions_do(
    club: Club, alice: User, api_as: Clients
) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=club_classic())
    before = counts()

    response = api_as(alice).post(
        rounds_url(game),
        {"dollars": [100_000, 50_000], "round": 1},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k" * 101,
    )

    expect(response, 400, "invalid")
    assert response.json()["details"] == {"max_length": 100}
    assert counts() == before


# --- opening games over the API ------------------------------------------------------------------


def test_opening_a_table_refuses_strangers_duplicates_and_unknown_competitors(
    club: Club, alice: User, carol: User, api_as: Clients
) -> None:
    url = f"/api/v1/nights/{club.night.pk}/recorded/"
    ids = {n: c.pk for n, c in club.players.items()}
    before = Game.objects.count()
    stranger = api_as(carol).post(url, {"competitors": [ids["Alice"], ids["Bob"]]}, format="json")
    expect(stranger, 403, "permission_denied")
    twice = api_as(alice).post(url, {"competitors": [ids["Alice"], ids["Alice"]]}, format="json")
    expect(twice, 422, "duplicate_competitor")
    unknown = api_as(alice).post(url, {"competitors": [ids["Alice"], 999_999]}, format="json")
    assert expect(unknown, 422, "not_a_competitor")["details"] == {"missing": [999_999]}
    seven = api_as(alice).post(url, {"competitors": [ids["Alice"]] * 7}, format="json")
    expect(seven, 422, "duplicate_competitor")
    one = api_as(alice).post(url, {"competitors": [ids["Alice"]]}, format="json")
    expect(one, 400, "invalid")
    bad_rules = api_as(alice).post(
        url,
        {"competitors": [ids["Alice"], ids["Bob"]], "rules": {"options": {"ending": "never"}}},
        format="json",
    )
    expect(bad_rules, 422, "invalid_rules")
    assert Game.objects.count() == before


def test_digital_games_have_no_score_sheet(
    club: Club, alice: User, api_as: Clients, olga: User
) -> None:
    response = api_as(olga).post(
        f"/api/v1/nights/{club.night.pk}/games/",
        {"competitors": [club.players["Alice"].pk, club.players["Bob"].pk]},
        format="json",
    )
    assert response.status_code == 201, response.json()
    game_id = response.json()["game"]
    expect(api_as(alice).get(rounds_url(game_id)), 404, "not_found")


# --- the public change log, standings as of, exports ------------------------------------------


def test_the_change_log_is_public_and_says_who_when_why_before_and_after(
    club: Club, olga: User, api: APIClient, api_as: Clients
) -> None:
    game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    api_as(olga).post(
        rounds_url(game, "1/correction/"),
        {"dollars": [50_000, 100_000], "reason": "swapped columns"},
        format="json",
    )
    response = api.get(f"/api/v1/competitions/{club.competition.pk}/changes/")
    assert response.status_code == 200
    page = response.json()
    log = page["results"]
    assert page["count"] == len(log)
    newest = log[0]
    assert newest["action"] == "round_corrected"
    assert newest["by"] == "olga"
    assert newest["reason"] == "swapped columns"
    assert (newest["before"], newest["after"]) == ([100_000, 50_000], [50_000, 100_000])
    assert newest["subject"] == f"game {game.pk} round 1"
    assert dt.datetime.fromisoformat(newest["at"]) <= dt.datetime.now(dt.UTC)
    assert [c["action"] for c in log][-1] == "season_created"  # oldest last
    assert {"competitor_added", "night_created", "game_recorded", "round_entered"} <= {
        c["action"] for c in log
    }


def test_standings_as_of_a_moment_through_the_api(
    club: Club, olga: User, api: APIClient, api_as: Clients
) -> None:
    t1 = dt.datetime(2030, 5, 1, 19, 0, tzinfo=dt.UTC)
    with time_machine.travel(t1, tick=False):
        game = settled_game(club, olga, ["Alice", "Bob"], [100_000, 50_000])
    with time_machine.travel(t1 + dt.timedelta(days=1), tick=False):
        api_as(olga).post(
            rounds_url(game, "1/correction/"),
            {"dollars": [50_000, 100_000], "reason": "swapped columns"},
            format="json",
        )
    url = f"/api/v1/competitions/{club.competition.pk}/standings/"
    now = api.get(url).json()
    then = api.get(url, {"as_of": (t1 + dt.timedelta(hours=1)).isoformat()}).json()
    assert now[0]["name"] == "Bob"
    assert then[0]["name"] == "Alice"
    assert then[0]["decided_by"] == ["points"]
    expect(api.get(url, {"as_of": "last tuesday"}), 400, "invalid")
    expect(api.get(url, {"since": "2030-01-01"}), 400, "invalid")


def test_standings_export_as_csv(club: Club, olga: User, api: APIClient) -> None:
    settled_game(club, olga, ["Alice", "Bob", "Dora"], [100_000, 50_000, 20_000])
    response = api.get(f"/api/v1/competitions/{club.competition.pk}/standings/", {"format": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert list(table[0]) == [
        "rank", "name", "games", "points", "placement", "dsi", "rounds_won", "wins",
        "best_dsi", "dollars", "penalty_points", "penalty_dollars", "competitor",
    ]  # fmt: skip
    assert [(r["rank"], r["name"], r["games"], r["points"]) for r in table] == [
        ("1", "Alice", "1", "1.0"),
        ("2", "Bob", "1", "0.5"),
        ("3", "Dora", "1", "0.0"),
        ("4", "Carol", "0", "0.0"),
    ]
    assert table[0]["dollars"] == "100000"
    assert table[0]["competitor"] == str(club.players["Alice"].pk)


def test_games_export_as_json_and_csv_seat_by_seat(club: Club, olga: User, api: APIClient) -> None:
    finished = settled_game(club, olga, ["Alice", "Dora"], [100_000, 50_000])
    playing = recorded_game(club, olga, ["Bob", "Carol"])
    url = f"/api/v1/competitions/{club.competition.pk}/games/"
    rows = api.get(url).json()
    assert rows == [
        {
            "game": finished.pk,
            "mode": "recorded",
            "status": "finished",
            "night": "2026-03-03",
            "round": None,
            "table": None,
            "seat": 0,
            "competitor": "Alice",
            "place": 1,
            "dollars": 100_000,
        },
        {
            "game": finished.pk,
            "mode": "recorded",
            "status": "finished",
            "night": "2026-03-03",
            "round": None,
            "table": None,
            "seat": 1,
            "competitor": "Dora",
            "place": 2,
            "dollars": 50_000,
        },
        *[
            {
                "game": playing.pk,
                "mode": "recorded",
                "status": "active",
                "night": "2026-03-03",
                "round": None,
                "table": None,
                "seat": seat,
                "competitor": name,
                "place": None,
                "dollars": None,
            }
            for seat, name in enumerate(["Bob", "Carol"])
        ],
    ]
    response = api.get(url, {"format": "csv"})
    assert response["Content-Type"].startswith("text/csv")
    table = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [(r["game"], r["seat"], r["competitor"], r["place"], r["dollars"]) for r in table] == [
        (str(finished.pk), "0", "Alice", "1", "100000"),
        (str(finished.pk), "1", "Dora", "2", "50000"),
        (str(playing.pk), "0", "Bob", "", ""),
        (str(playing.pk), "1", "Carol", "", ""),
    ]


def test_a_bad_as_of_with_the_csv_format_still_answers_a_json_error(
    club: Club, api: APIClient
) -> None:
    url = f"/api/v1/competitions/{club.competition.pk}/standings/"
    response = api.get(url, {"format": "csv", "as_of": "soon"})
    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["code"] == "invalid"


def test_a_guest_linked_later_keeps_the_results_in_the_exports(
    club: Club, olga: User, api: APIClient
) -> None:
    from tournaments import services

    settled_game(club, olga, ["Dora", "Alice"], [100_000, 50_000])
    services.competitor_link(
        competitor=club.players["Dora"], by=olga, user=UserFactory.create(username="dora")
    )
    url = f"/api/v1/competitions/{club.competition.pk}/competitors/"
    competitors = api.get(url).json()["results"]
    assert {c["name"]: c["username"] for c in competitors}["Dora"] == "dora"
    standings = api.get(f"/api/v1/competitions/{club.competition.pk}/standings/").json()
    assert (standings[0]["name"], standings[0]["wins"]) == ("Dora", 1)


# --- two phones, one round ----------------------------------------------------------------------


def test_an_entry_must_say_which_round_it_is_for(club: Club, alice: User, api_as: Clients) -> None:
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=club_classic())
    before = counts()
    response = api_as(alice).post(rounds_url(game), {"dollars": [100_000, 50_000]}, format="json")
    assert expect(response, 400, "invalid")["details"]["round"][0]["code"] == "required"
    assert counts() == before


@pytest.mark.usefixtures("transactional_db")
def test_two_phones_entering_the_same_round_at_once_store_it_once(
    club: Club, alice: User, bob: User, api_as: Clients
) -> None:
    """Issue 26: without ``round``, both entries were stored, as rounds 1 and 2. Each phone
    says the round it shows; on two real connections released together, one entry wins
    and the other is refused with 409 stale_round, whatever the idempotency keys."""
    game = recorded_game(club, alice, ["Alice", "Bob"], rules=club_classic())
    phones = {"alice": api_as(alice), "bob": api_as(bob)}
    dollars = {"alice": [100_000, 50_000], "bob": [150_000, 50_000]}

    def enter(who: str, number: int) -> Callable[[], Outcome]:
        def job() -> Outcome:
            response = phones[who].post(
                rounds_url(game),
                {"dollars": dollars[who], "round": number},
                format="json",
                HTTP_IDEMPOTENCY_KEY=f"{who}-phone-r{number}",
            )
            return response.status_code, response.json()

        return job

    for number in (1, 2, 3):  # the loser's phone then shows the next round
        outcomes = race_threads([enter("alice", number), enter("bob", number)])
        assert sorted(status for status, _ in outcomes) == [201, 409], outcomes
        loser = next(body for status, body in outcomes if status == 409)
        assert (loser["code"], loser["details"]) == ("stale_round", {"next_round": number + 1})
        numbers = ScoreRecord.objects.filter(game=game).values_list("round_number", flat=True)
        assert sorted(numbers) == list(range(1, number + 1))
