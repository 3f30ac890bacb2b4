"""An API-client bot's loop: find its games, wait for its turns, answer, repeat.

    PullClient("https://cya.example", token, decide).run()

It uses the platform's public API (docs/games.md) with the bot's token:

- ``GET /api/v1/games/?mine=true&status=active`` finds the games the bot sits in;
- per game, ``GET .../decision/`` says whether the bot must act; when it need not,
  ``GET .../wait/?after=<version>`` long-polls until the game changes (no busy polling);
- ``POST .../actions/`` answers ``{"action", "version"}`` (and ``debug``, the note
  ``decide`` returned, if any) with an ``Idempotency-Key``.

Network errors, 429 and 5xx answers are retried with backoff. An action is retried with
the same Idempotency-Key, so a retry of an action that did arrive applies nothing.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Mapping
from typing import Any

import httpx

from .webhook import answer_of

Decision = dict[str, Any]
Decide = Callable[[Decision], Mapping[str, Any]]
ENDED = ("finished", "aborted")
MOVED_ON = ("stale_version", "game_over")  # the decision was no longer open: fetch again

log = logging.getLogger("cya_bot.client")


class ApiError(Exception):
    """The platform refused a request (``status`` 0: it could not be reached)."""

    def __init__(self, status: int, code: str, message: str, details: Any = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details


class _Stopped(Exception):
    """``stop()`` was called while a request waited to be retried."""


class PullClient:
    """Play an API-client bot: ``PullClient(url, token, decide).run()`` until ``stop()``.

    ``base_url`` is the platform's address (``https://host``; ``/api/v1`` is added).
    ``decide(decision)`` returns one of ``decision["legal_actions"]``. ``run()`` plays
    every active game of the bot, one thread per game; ``play_game(id)`` plays one.
    ``wait_seconds`` bounds each long poll, and so how long ``stop()`` may take.
    """

    def __init__(
        self,
        base_url: str,
        token: str,
        decide: Decide,
        *,
        wait_seconds: float = 25.0,
        games_every: float = 5.0,
        retries: int = 5,
        backoff: float = 0.5,
    ) -> None:
        api = base_url.rstrip("/")
        if not api.endswith("/api/v1"):
            api += "/api/v1"
        self.decide = decide
        self.wait_seconds = wait_seconds
        self.games_every = games_every
        self.retries = retries
        self.backoff = backoff
        self.answered = 0
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._http = httpx.Client(
            base_url=api,
            headers={"Authorization": f"Bearer {token}", "User-Agent": "cya-bot/1.0"},
            timeout=httpx.Timeout(10.0, read=wait_seconds + 10.0),
        )

    # --- control ---------------------------------------------------------------------

    def stop(self) -> None:
        """Stop: ``run()`` and ``play_game()`` return after their current request."""
        self._stopped.set()

    @property
    def stopped(self) -> bool:
        """Whether ``stop()`` was called."""
        return self._stopped.is_set()

    def close(self) -> None:
        """Stop and close the HTTP connections."""
        self.stop()
        self._http.close()

    def __enter__(self) -> PullClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- playing ---------------------------------------------------------------------

    def run(self) -> None:
        """Play every active game of the bot, new ones as they start, until ``stop()``."""
        threads: dict[int, threading.Thread] = {}
        try:
            while not self.stopped:
                try:
                    games = self.active_games()
                except _Stopped:
                    break
                except ApiError as error:
                    if error.status in (401, 403):
                        raise  # a wrong or revoked token: retrying cannot help
                    log.error("listing games failed: %s", error)
                    games = []
                for game_id in games:
                    if game_id not in threads:
                        threads[game_id] = thread = threading.Thread(
                            target=self._play_logged, args=(game_id,), name=f"cya-game-{game_id}"
                        )
                        thread.start()
                # forget ended games; a crashed game stays listed so it is not restarted
                threads = {g: t for g, t in threads.items() if t.is_alive() or g in games}
                self._stopped.wait(self.games_every)
        except KeyboardInterrupt:
            log.info("interrupted: finishing the requests under way")
        finally:
            self.stop()
            for thread in threads.values():
                thread.join()

    def active_games(self) -> list[int]:
        """The ids of the active games the bot has a seat in."""
        params = {"mine": "true", "status": "active", "page_size": 100}
        page = self._call("GET", "/games/", params=params)
        return [int(game["id"]) for game in page["results"]]

    def play_game(self, game_id: int) -> None:
        """Answer the bot's decisions in one game until it ends or ``stop()`` is called.

        Raises ApiError when the platform refuses an action (an illegal one: fix decide).
        """
        path = f"/games/{game_id}"
        try:
            while not self.stopped:
                envelope = self._call("GET", f"{path}/decision/")
                if envelope["status"] in ENDED:
                    return
                if envelope["decision"] is not None:
                    self._answer(path, envelope["decision"])
                    continue
                params = {"after": envelope["version"], "timeout": self.wait_seconds}
                self._call("GET", f"{path}/wait/", params=params)
        except _Stopped:
            return

    def _play_logged(self, game_id: int) -> None:
        try:
            self.play_game(game_id)
        except Exception:
            log.exception("stopped playing game %s", game_id)

    def _answer(self, path: str, decision: Decision) -> None:
        answer = answer_of(self.decide(decision))
        key = f"{decision['decision_id']}-{uuid.uuid4().hex}"
        body = {"action": answer["action"], "version": decision["version"]}
        if "debug" in answer:  # kept in the bot's decision log, for its owner
            body["debug"] = answer["debug"]
        try:
            self._call("POST", f"{path}/actions/", body=body, headers={"Idempotency-Key": key})
        except ApiError as error:
            if error.code in MOVED_ON:  # e.g. the deadline passed and a default was played
                log.warning("decision %s: %s", decision["decision_id"], error.message)
                return
            raise
        with self._lock:
            self.answered += 1

    # --- HTTP with retries -----------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        body: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> Any:
        """One API request, retried on network errors, 429 and 5xx; the JSON answer."""
        pause = self.backoff
        problem = ""
        for attempt in range(self.retries + 1):
            try:
                response = self._http.request(
                    method, path, params=params, json=body, headers=headers
                )
            except httpx.TransportError as error:
                problem = f"{type(error).__name__}: {error}"
            else:
                status = response.status_code
                if status < 400:
                    return response.json()
                if status != 429 and status < 500:
                    raise _error(response)
                problem = f"HTTP {status}"
                pause = max(pause, _retry_after(response))
            if attempt == self.retries:
                break
            log.warning("%s %s failed (%s); retrying in %.1f s", method, path, problem, pause)
            if self._stopped.wait(pause):
                raise _Stopped
            pause *= 2
        raise ApiError(0, "unreachable", f"{method} {path}: {problem}")


def _error(response: httpx.Response) -> ApiError:
    try:
        data = response.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return ApiError(response.status_code, "http_error", response.text[:200])
    return ApiError(
        response.status_code,
        str(data.get("code", "http_error")),
        str(data.get("message", "")),
        data.get("details"),
    )


def _retry_after(response: httpx.Response) -> float:
    try:
        return float(response.headers.get("Retry-After", "0"))
    except ValueError:
        return 0.0
