"""Typed errors raised by the engine; each carries a stable snake_case ``code``.

The web layer maps ``code`` and ``http_status`` onto its JSON error shape, so the
codes are part of the public API: document new ones in docs/errors.md, never rename.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""

    code = "engine_error"
    http_status = 422  # understood (the request matches the schema), but the rules refuse it

    def __init__(self, message: str, code: str | None = None) -> None:
        # every argument in args: a task's result backend rebuilds an error from its class
        # and args, so a code given here survives the trip
        super().__init__(message, code)
        if code is not None:
            self.code = code
        self.message = message

    def __str__(self) -> str:
        return self.message


class InvalidRules(EngineError):
    """A RuleSet option, or a combination of options, that cannot be played."""

    code = "invalid_rules"

    def __init__(self, message: str, field: str) -> None:
        super().__init__(message)
        self.args = (message, field)  # rebuilt whole from its args, as EngineError
        self.field = field


class MalformedAction(EngineError):
    """An action that is not well formed (unknown type, unknown card, bad fields)."""

    code = "malformed_action"


class IllegalAction(EngineError):
    """A well-formed action the rules do not allow in this state."""

    code = "illegal_action"


class GameOver(IllegalAction):
    """Any action after the game has ended."""

    code = "game_over"
    http_status = 409


class NotYourTurn(IllegalAction):
    """An action from a seat that does not hold the current decision."""

    code = "not_your_turn"
    http_status = 409


class ScoreError(EngineError):
    """Recorded real-table dollars the deck or the ending rules cannot explain.

    ``code`` is stable (docs/errors.md) and ``details`` says what exactly, e.g. the seat
    whose dollars no stack is worth, so a score sheet shows it beside that seat's field.
    """

    code = "impossible_score"
    http_status = 422  # understood, but no game of these rules could end so

    def __init__(self, message: str, code: str, details: dict[str, object] | None = None) -> None:
        super().__init__(message, code)
        self.details = dict(details or {})
        self.args = (message, code, self.details)  # rebuilt whole from its args, as EngineError
