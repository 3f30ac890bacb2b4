"""Rule options as the APIs take them: a preset, and options over it by name.

``RuleOptionsField`` refuses an unknown option under its own name and documents every
option with its default in the OpenAPI schema; ``rules_build`` lays the options over the
preset. The games API and the tournaments API both take rules this way.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail

from games.engine import RuleSet

# The options and advanced switches of a RuleSet, by name, with their defaults.
_DEFAULTS = RuleSet().to_json()
_ADVANCED_DEFAULTS = _DEFAULTS.pop("advanced")
# Every table sets its own seat count: the games API beside the options, tournaments and
# score sheets from the players at the table.
_NOT_OPTIONS = frozenset({"seats"})
_JSON_TYPES = {bool: "boolean", int: "integer", str: "string"}
_UNSET_TYPES = {"hand_size": "integer", "draft_piles": "boolean", "ending_rounds": "integer"}


def _option_schema(name: str, default: Any) -> dict[str, Any]:
    if default is None:
        return {"type": _UNSET_TYPES[name], "nullable": True}
    return {"type": _JSON_TYPES[type(default)], "default": default}


def _options_schema(defaults: Mapping[str, Any]) -> dict[str, Any]:
    properties = {n: _option_schema(n, v) for n, v in defaults.items() if n not in _NOT_OPTIONS}
    return {"type": "object", "properties": properties, "additionalProperties": False}


OPTIONS_SCHEMA = _options_schema(_DEFAULTS)
OPTIONS_SCHEMA["properties"]["advanced"] = _options_schema(_ADVANCED_DEFAULTS)
_OPTION_NAMES = frozenset(OPTIONS_SCHEMA["properties"])
_ADVANCED_NAMES = frozenset(_ADVANCED_DEFAULTS)


@extend_schema_field(OPTIONS_SCHEMA)
class RuleOptionsField(serializers.DictField):
    """RuleSet options over a preset (docs/engine.md), by name; ``advanced`` is an object.

    An unknown option, or ``seats`` (which the table sets), is refused with
    ``unknown_field`` under its name; the engine judges the values (``invalid_rules``).
    """

    def __init__(self, *, misplaced: Mapping[str, str], **kwargs: Any) -> None:
        self.misplaced = dict(misplaced)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        """The options as given, once every name is one the engine knows."""
        options: dict[str, Any] = super().to_internal_value(data)
        errors: dict[str, Any] = self._unknown(options, _OPTION_NAMES)
        advanced = options.get("advanced", {})
        if not isinstance(advanced, dict):
            errors["advanced"] = [ErrorDetail("Expected an object.", code="not_a_dict")]
        elif unknown := self._unknown(advanced, _ADVANCED_NAMES):
            errors["advanced"] = unknown
        if errors:
            raise serializers.ValidationError(errors)
        return options

    def _unknown(self, given: Mapping[str, Any], known: frozenset[str]) -> dict[str, Any]:
        return {
            name: [ErrorDetail(self.misplaced.get(name, "Unknown option."), code="unknown_field")]
            for name in sorted(set(given) - known)
        }


def rules_build(preset: str, options: Mapping[str, Any], **fixed: Any) -> RuleSet:
    """The preset with ``options`` over it (``advanced`` merged switch by switch) and ``fixed``.

    Raises the engine's InvalidRules (``invalid_rules``, naming the option) for a value or
    a combination that cannot be played.
    """
    data = RuleSet.preset(preset).to_json()
    options = dict(options)
    data["advanced"] = {**data["advanced"], **options.pop("advanced", {})}
    data.update(options, **fixed)
    return RuleSet.from_json(data)
