"""A lease's row (bots.models.Lease): taken, renewed, checked and let go.

Each statement is one conditional write or a locking read, alike on PostgreSQL and
SQLite. A run takes its lease once, checks it at each finishing write (every game of a
ladder match, whose games of built-in seats cost a few milliseconds each; every move of a
bot's turn) and lets it go once, so these are hot: taking a lease no one holds (never
taken, let go, or run out: the common case) is one ``INSERT ... ON CONFLICT DO UPDATE
... RETURNING`` (``_take_free``), not a transaction's four round trips; checking and
letting go are one statement each, prepared once per connection on PostgreSQL
(cya_site.rows), and a check can ride in one round trip with the write it fences
(``current_sent``). Taking over from a holder (a later try of its run) and the rest go
through the ORM.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from functools import cache

from django.db import IntegrityError, connection, transaction
from django.db.models import F

from bots.models import Lease
from cya_site import rows


def take(namespace: int, key: int, owner: str, now: datetime, ttl: timedelta) -> int | None:
    """Take the lease if no one else holds it (none yet, its holder's time ran out, or its
    holder is an earlier try of ``owner``'s run, ``succeeds``): its new fencing token;
    None while another holds it."""
    token = _take_free(namespace, key, owner, now, ttl)
    if token is not None:
        return token
    try:
        with transaction.atomic():
            row, created = Lease.objects.select_for_update().get_or_create(
                namespace=namespace,
                key=key,
                defaults={"owner": owner, "token": 1, "expires_at": now + ttl},
            )
            if created:
                return 1
            if row.expires_at > now and not succeeds(owner, row.owner):
                return None
            row.owner, row.token, row.expires_at = owner, row.token + 1, now + ttl
            row.save(update_fields=["owner", "token", "expires_at"])
            return row.token
    except IntegrityError:  # another run created it first, and holds it
        return None


def _take_free(namespace: int, key: int, owner: str, now: datetime, ttl: timedelta) -> int | None:
    """Take the lease in one statement if no one holds it: its row is new (token 1), or
    its holder let go or ran out (the token raised); None while it is held (``take``
    decides whether this owner may take it over)."""
    ops = connection.ops
    expires_at, until = (ops.adapt_datetimefield_value(t) for t in (now + ttl, now))
    with rows.cursor() as cursor:
        cursor.execute(_take_free_sql(), [namespace, key, owner, expires_at, until])
        row = cursor.fetchone()
    return None if row is None else int(row[0])


def succeeds(owner: str, holder: str) -> bool:
    """Whether ``owner`` (``<run>#<try>@<process>``) may take over from ``holder``: the
    same owner, or a later try of the same run. A task retries only once its try has
    ended (an outage cut it off, perhaps before it could let go), while a copy delivered
    twice is the same try, and must wait."""
    if owner == holder:
        return True
    run, _, tried = owner.partition("@")[0].rpartition("#")
    held_run, _, held_tried = holder.partition("@")[0].rpartition("#")
    later = tried.isdigit() and held_tried.isdigit() and int(tried) > int(held_tried)
    return bool(run) and run == held_run and later


def renew(namespace: int, key: int, token: int, now: datetime, ttl: timedelta) -> bool:
    """Push the expiry on, if ``token`` still holds the lease: whether it does."""
    held = Lease.objects.filter(namespace=namespace, key=key, token=token)
    return held.update(expires_at=now + ttl) == 1


def current(namespace: int, key: int, token: int) -> bool:
    """Within a transaction: whether ``token`` holds the lease, keeping it so (the row
    locked) until the transaction ends: a take-over waits for the write it fences."""
    with current_sent(namespace, key, token) as held:
        return held()


@contextmanager
def current_sent(namespace: int, key: int, token: int) -> Iterator[Callable[[], bool]]:
    """``current``, its statement run on entering and its answer read by calling what
    this yields, within the block. In a pipeline (cya_site.rows.pipeline, PostgreSQL) the
    statement is only sent on entering, and goes in one round trip with those after it."""
    with rows.cursor() as cursor:
        cursor.execute(_current_sql(), [namespace, key, token])
        yield lambda: cursor.fetchone() is not None


def release(namespace: int, key: int, token: int, now: datetime) -> bool:
    """Let go, if ``token`` still holds it (the row stays: tokens only grow): whether it
    did. Within a transaction, the row stays locked until it ends, as ``current`` keeps
    it."""
    with release_sent(namespace, key, token, now) as released:
        return released()


@contextmanager
def release_sent(
    namespace: int, key: int, token: int, now: datetime
) -> Iterator[Callable[[], bool]]:
    """``release``, sent on entering and its answer read by calling what this yields, as
    ``current_sent``: in a pipeline it goes in one round trip with those after it."""
    with rows.cursor() as cursor:
        params = [connection.ops.adapt_datetimefield_value(now), namespace, key, token]
        cursor.execute(_release_sql(), params)
        yield lambda: cursor.fetchone() is not None


def free(namespace: int, key: int, now: datetime) -> bool:
    """Whether no one holds the lease at ``now``."""
    return not Lease.objects.filter(namespace=namespace, key=key, expires_at__gt=now).exists()


def expires(namespace: int, key: int) -> datetime | None:
    """When the lease runs out unless renewed; None if there is none."""
    found = Lease.objects.filter(namespace=namespace, key=key).values_list("expires_at", flat=True)
    return found.first()


def bump(namespace: int, key: int) -> None:
    """Take the token on by one: its holder is fenced off (tests, and an operator's
    last resort for a run that must stop writing)."""
    Lease.objects.filter(namespace=namespace, key=key).update(token=F("token") + 1)


# --- the statements, portable (PostgreSQL and SQLite 3.35+), names from ``_meta`` ----------


def _col(name: str) -> str:
    return rows.column(Lease, name)


def _this_lease() -> str:
    """One lease held by one token. Parameters: namespace, key, token."""
    return f"{_col('namespace')} = %s AND {_col('key')} = %s AND {_col('token')} = %s"


@cache
def _take_free_sql() -> str:
    """Parameters: namespace, key, owner, the new expiry, now."""
    table, token, expires_at = rows.table(Lease), _col("token"), _col("expires_at")
    columns = ", ".join(_col(name) for name in ("namespace", "key", "owner", "token"))
    return (
        f"INSERT INTO {table} ({columns}, {expires_at}) VALUES (%s, %s, %s, 1, %s)"
        f" ON CONFLICT ({_col('namespace')}, {_col('key')}) DO UPDATE SET"
        f" {_col('owner')} = EXCLUDED.{_col('owner')}, {token} = {table}.{token} + 1,"
        f" {expires_at} = EXCLUDED.{expires_at} WHERE {table}.{expires_at} <= %s"
        f" RETURNING {token}"
    )


@cache
def _current_sql() -> str:
    """Parameters: ``_this_lease``'s."""
    sql = f"SELECT 1 FROM {rows.table(Lease)} WHERE {_this_lease()}"
    return sql + " FOR UPDATE" if connection.features.has_select_for_update else sql


@cache
def _release_sql() -> str:
    """Parameters: now, then ``_this_lease``'s."""
    return (
        f"UPDATE {rows.table(Lease)} SET {_col('expires_at')} = %s WHERE {_this_lease()}"
        " RETURNING 1"
    )
