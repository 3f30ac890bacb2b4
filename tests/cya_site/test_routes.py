"""Ids in URLs (cya_site.routes): every number in a path is ``<id:...>``, and an id past
the largest the database holds answers 404 like any unknown id, on every route.

Such an id once reached the database driver, which cannot bind it (SQLite raises
OverflowError), and the request ended in a 500; the SQLite test below runs the named
endpoints on the backend that crashed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver, resolve
from django.urls.converters import IntConverter
from django.urls.resolvers import RegexPattern, RoutePattern
from rest_framework.test import APIClient

from accounts.models import User
from cya_site.errors import api_not_found, page_not_found
from cya_site.routes import MAX_ID, IdConverter, parse_id

ROOT = Path(__file__).resolve().parents[2]
PAST = MAX_ID + 1
HUGE = 99999999999999999999999
ID_PARAMETER = re.compile(r"<id:(\w+)>")


def routes() -> Iterator[tuple[str, URLPattern | URLResolver]]:
    """Every route of the project with its full path pattern, the admin's aside."""

    def walk(
        patterns: list[URLPattern | URLResolver], prefix: str
    ) -> Iterator[tuple[str, URLPattern | URLResolver]]:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if route.startswith("admin/"):
                continue  # Django's own: object ids are <path:...>, looked up by the ORM
            yield route, pattern
            if isinstance(pattern, URLResolver):
                yield from walk(pattern.url_patterns, route)

    return walk(get_resolver().url_patterns, "")


def id_routes() -> list[str]:
    return sorted({route for route, _ in routes() if ID_PARAMETER.search(route)})


def filled(route: str, target: str, value: int) -> str:
    """The route as a path: ``value`` for the ``target`` id, 1 for other ids, a slug."""
    path = ID_PARAMETER.sub(lambda m: str(value if m.group(1) == target else 1), route)
    return "/" + re.sub(r"<slug:\w+>", "tuesday", path)


def sweep() -> list[tuple[str, str]]:
    return [(route, name) for route in id_routes() for name in ID_PARAMETER.findall(route)]


# --- parse_id and the converter ------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0", 0),
        ("42", 42),
        ("007", 7),
        (str(MAX_ID), MAX_ID),
        (str(PAST), None),
        (str(HUGE), None),
        ("9" * 5000, None),  # past int()'s digit limit too
        ("", None),
        ("-1", None),
        ("1.5", None),
        ("٣", None),  # a digit, but not an ASCII one
        (" 1", None),
    ],
)
def test_parse_id_takes_ascii_digits_up_to_the_largest_id(text: str, expected: int | None) -> None:
    assert parse_id(text) == expected


def test_the_converter_matches_ids_and_refuses_one_past_the_largest() -> None:
    converter = IdConverter()

    assert converter.to_python(str(MAX_ID)) == MAX_ID
    assert converter.to_url(12) == "12"
    with pytest.raises(ValueError, match="past the largest id"):
        converter.to_python(str(PAST))


# --- every route ---------------------------------------------------------------------------


def test_every_number_in_a_path_is_an_id() -> None:
    for route, pattern in routes():
        if isinstance(pattern.pattern, RoutePattern):
            converters = pattern.pattern.converters.values()
            assert not any(isinstance(c, IntConverter) for c in converters), route
        else:
            assert isinstance(pattern.pattern, RegexPattern)
            assert not pattern.pattern.regex.groupindex, route  # a number as a regex group
    assert len(id_routes()) > 50


@pytest.mark.parametrize(("route", "name"), sweep())
def test_an_id_past_the_largest_matches_no_route_while_the_largest_does(
    route: str, name: str
) -> None:
    largest = resolve(filled(route, name, MAX_ID))
    assert largest.route == route

    past = filled(route, name, PAST)
    # no route of its own: the catch-all's 404, JSON under /api/, the site's page elsewhere
    assert resolve(past).func is (api_not_found if route.startswith("api/") else page_not_found)


@pytest.mark.django_db
def test_an_id_past_the_largest_is_a_404_on_every_route_and_method(staff: User) -> None:
    client = APIClient()
    client.force_login(staff)
    wrong = []

    for route, name in sweep():
        for method in ("get", "post", "delete"):
            response = getattr(client, method)(filled(route, name, HUGE))
            api = route.startswith("api/")
            if response.status_code != 404 or (api and response.json()["code"] != "not_found"):
                wrong.append((method, route, name, response.status_code))

    assert wrong == []


def test_the_schema_says_every_path_id_is_an_integer_up_to_the_largest(tmp_path: Path) -> None:
    """Every path parameter is an id, but a player's username (``/players/{name}/``)."""
    schema_file = tmp_path / "schema.yaml"
    call_command("spectacular", "--file", str(schema_file))
    schema = yaml.safe_load(schema_file.read_text())

    seen = 0
    for path, item in schema["paths"].items():
        for operation in item.values():
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path" and path.startswith("/api/v1/players/{name}/"):
                    assert parameter["schema"] == {"type": "string"}, (path, parameter)
                elif parameter["in"] == "path":
                    seen += 1
                    expected = {"type": "integer", "minimum": 0, "maximum": MAX_ID}
                    assert parameter["schema"] == expected, (path, parameter)
    assert seen > 50


# --- on SQLite, where the driver overflowed --------------------------------------------------

SCRIPT = textwrap.dedent(
    """
    import django
    django.setup()
    from django.core.management import call_command
    call_command("migrate", verbosity=0)
    from rest_framework.test import APIClient
    from accounts.models import User
    from games import services
    from games.engine import RuleSet
    from tests.clients import authenticate
    from tournaments import running

    alice = User.objects.create_user(username="alice", password="x")
    bob = User.objects.create_user(username="bob", password="x")
    game = services.game_create(by=alice, rules=RuleSet.preset("2021", seats=2))
    services.game_join(game=game, user=bob)
    services.game_start(game=game, by=alice)
    cup = running.tournament_create(
        by=alice, name="Cup", format="round_robin", entrants="humans", play="recorded",
        rules=RuleSet.preset("2021"), rounds=1, table_sizes=[2], preferred_size=2,
    )
    client = APIClient(raise_request_exception=True)
    authenticate(client, alice)
    for number in (MAX_ID, PAST, HUGE):
        answers = {
            "decision": client.get(f"/api/v1/games/{number}/decision/"),
            "stream": client.get(f"/api/v1/games/{number}/stream/"),
            "actions": client.post(
                f"/api/v1/games/{number}/actions/",
                {"action": {"type": "concede"}, "version": 0},
                format="json",
            ),
            "advance": client.post(f"/api/v1/tournaments/{number}/rounds/1/advance/"),
            "round": client.post(f"/api/v1/tournaments/{cup.pk}/rounds/{number}/advance/"),
            "competitors": client.post(
                "/api/v1/nights/1/recorded/", {"competitors": [number, 1]}, format="json"
            ),
        }
        for name, response in answers.items():
            print(number, name, response.status_code, response.json()["code"])
    """
)


def test_ids_past_the_largest_are_404_on_sqlite_too(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "cya_site.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "VAR_DIR": str(tmp_path),
        "ALLOWED_HOSTS": "testserver",
        "LADDER_TABLES": "0",
    }
    env.pop("REDIS_URL", None)  # the bare machine's defaults: no broker, a local cache
    script = f"MAX_ID, PAST, HUGE = {MAX_ID}, {PAST}, {HUGE}\n{SCRIPT}"

    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True
    )

    assert done.returncode == 0, done.stderr[-3000:]
    answers = {tuple(line.split()[:2]): line.split()[2:] for line in done.stdout.splitlines()}
    for number in (MAX_ID, PAST, HUGE):
        for name in ("decision", "stream", "actions", "advance"):
            assert answers[(str(number), name)] == ["404", "not_found"], (number, name)
    assert answers[(str(MAX_ID), "round")] == ["404", "no_such_round"]
    assert answers[(str(PAST), "round")] == ["404", "not_found"]
    assert answers[(str(MAX_ID), "competitors")][0] == "404"  # no night 1
    assert answers[(str(PAST), "competitors")] == ["400", "invalid"]
