"""A lease's row (bots.models.Lease): taken, renewed, checked and let go.

Each statement is one conditional write or a locking read, alike on PostgreSQL and
SQLite, through the ORM but one: taking a lease that has run out, the common case, is a
single statement with ``RETURNING`` (``_take_free``), not a transaction's four round
trips, since a bot's turn at a people's table takes one per move (issue 25).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db import IntegrityError, connection, transaction
from django.db.models import F

from bots.models import Lease


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
    """Take the lease in one statement if its row exists and has run out (its holder let
    go, or died): the new token; None otherwise (no row yet, or held: ``take`` decides)."""
    table, ops = Lease._meta.db_table, connection.ops
    names = [ops.quote_name(column) for column in ("owner", "token", "expires_at", "namespace")]
    owner_, token, expires_at, namespace_ = names
    key_ = ops.quote_name("key")
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {ops.quote_name(table)} SET {owner_} = %s, {token} = {token} + 1,"
            f" {expires_at} = %s WHERE {namespace_} = %s AND {key_} = %s AND {expires_at} <= %s"
            f" RETURNING {token}",
            [
                owner,
                ops.adapt_datetimefield_value(now + ttl),
                namespace,
                key,
                ops.adapt_datetimefield_value(now),
            ],
        )
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
    held = Lease.objects.select_for_update().filter(namespace=namespace, key=key, token=token)
    return held.exists()


def release(namespace: int, key: int, token: int, now: datetime) -> bool:
    """Let go, if ``token`` still holds it (the row stays: tokens only grow): whether it
    did. Within a transaction, the row stays locked until it ends, as ``current`` keeps
    it."""
    held = Lease.objects.filter(namespace=namespace, key=key, token=token)
    return held.update(expires_at=now) == 1


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
