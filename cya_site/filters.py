"""Query filters that refuse a value of the wrong type, where django-filter ignores it.

django-filter reads ``?mine=perhaps`` as no filter at all and ``?seats=0.5`` as a decimal
that no table has, so a client's mistake answers a list it did not ask for. These say
``invalid`` under the parameter's name instead (cya_site/errors.py renders it), and keep
the types the schema documents (boolean, integer).
"""

from typing import Any

from django import forms
from django_filters import rest_framework as filters

TRUE_FALSE = {"true": True, "false": False}


class TrueFalseField(forms.Field):
    """``true`` or ``false``, as JSON spells them; nothing else."""

    def to_python(self, value: Any) -> bool | None:
        """The boolean a query value names (None when it is absent)."""
        if value in self.empty_values:
            return None
        if value not in TRUE_FALSE:
            raise forms.ValidationError("Expected true or false.", code="invalid")
        return TRUE_FALSE[value]


class TrueFalseFilter(filters.BooleanFilter):  # type: ignore[misc]  # django-filter is untyped
    """A boolean filter refusing anything but ``true`` and ``false``."""

    field_class = TrueFalseField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # the raw text, not django-filter's BooleanWidget, which turns any other word to None
        kwargs.setdefault("widget", forms.TextInput)
        super().__init__(*args, **kwargs)


class IntegerFilter(filters.NumberFilter):  # type: ignore[misc]  # django-filter is untyped
    """A whole-number filter (NumberFilter reads decimals)."""

    field_class = forms.IntegerField
