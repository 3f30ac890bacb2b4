"""Every input serializer binds fields of its own, as DRF's do, however they are copied."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from cya_site.serializers import StrictInputSerializer


class Example(StrictInputSerializer):
    name = serializers.CharField(max_length=5)
    count = serializers.IntegerField(min_value=0, required=False)
    tags = serializers.ListField(child=serializers.CharField(max_length=3), required=False)


def test_each_instance_binds_fields_of_its_own_and_leaves_the_declared_ones_unbound() -> None:
    first, second = Example(data={}), Example(data={})

    for name, declared in Example._declared_fields.items():
        assert first.fields[name] is not second.fields[name]
        assert first.fields[name].parent is first
        assert second.fields[name].parent is second
        assert declared.parent is None


def test_changing_one_instances_field_leaves_the_others_alone() -> None:
    changed = Example(data={"name": "abcdefgh"})
    name: Any = changed.fields["name"]
    name.validators.clear()
    name.max_length = None

    assert changed.is_valid()
    assert not Example(data={"name": "abcdefgh"}).is_valid()


def test_a_list_fields_child_is_bound_to_that_instances_list() -> None:
    example = Example(data={})
    tags: Any = example.fields["tags"]

    assert tags.child.parent is tags
    assert tags.child is not Example._declared_fields["tags"].child  # type: ignore[attr-defined]


def test_copied_fields_validate_as_declared() -> None:
    body = {"name": "ann", "count": -1, "tags": ["abcd"], "extra": 1}

    example = Example(data=body)

    assert not example.is_valid()
    assert example.errors.keys() == {"count", "tags", "extra"}
    assert example.errors["count"][0].code == "min_value"
    assert example.errors["extra"][0].code == "unknown_field"
