"""The fault-test servers themselves: they start, serve, stop, restart on the same port,
and a client reconnects afterwards."""

import psycopg
import pytest
import redis

from tests.faults.servers import (
    PostgresCluster,
    RedisServer,
    accepts_connections,
    postgres_answers,
    redis_answers,
    running_postgres,
    running_redis,
)

pytestmark = pytest.mark.faults


# --- Redis ---------------------------------------------------------------------------------


def test_redis_server_is_its_own_and_not_the_machines(redis_server: RedisServer) -> None:
    assert redis_server.port != 6379
    assert redis_server.url == f"redis://127.0.0.1:{redis_server.port}/0"
    assert redis_answers(redis_server.url)


def test_redis_restart_comes_back_on_the_same_port_empty_and_a_client_reconnects(
    redis_server: RedisServer,
) -> None:
    client = redis.Redis.from_url(redis_server.url)
    client.set("before", "1")

    redis_server.restart(gap=1.0)

    # the client's pooled connection died with the server; the next command reconnects
    assert client.get("before") is None  # no persistence
    client.set("after", "2")
    assert client.get("after") == b"2"
    assert redis_server.starts == 2
    client.close()


def test_redis_restart_with_save_keeps_the_data(redis_server: RedisServer) -> None:
    client = redis.Redis.from_url(redis_server.url)
    client.set("kept", "yes")

    redis_server.restart(save=True)

    assert client.get("kept") == b"yes"
    client.close()


def test_redis_stopped_refuses_connections_until_started(redis_server: RedisServer) -> None:
    client = redis.Redis.from_url(redis_server.url, socket_connect_timeout=1)

    redis_server.stop(kill=True)

    assert not accepts_connections(redis_server.port)
    with pytest.raises(redis.ConnectionError):
        client.ping()
    redis_server.start()
    assert client.ping()
    client.close()


def test_running_redis_removes_its_folder_and_frees_its_port() -> None:
    with running_redis() as server:
        directory, port = server.directory, server.port
        assert directory.is_dir()

    assert not directory.exists()
    assert not accepts_connections(port)


# --- PostgreSQL ----------------------------------------------------------------------------


def test_postgres_cluster_is_its_own_and_takes_writes(postgres_cluster: PostgresCluster) -> None:
    url = postgres_cluster.create_database("faults")

    with psycopg.connect(url) as connection:
        connection.execute("CREATE TABLE t (n int)")
        connection.execute("INSERT INTO t VALUES (1)")
        port = connection.info.port
        fsync = connection.execute("SHOW fsync").fetchone()

    assert port == postgres_cluster.port != 5432
    assert fsync == ("off",)


def test_postgres_restart_keeps_committed_rows_and_drops_connections(
    postgres_cluster: PostgresCluster,
) -> None:
    url = postgres_cluster.create_database("faults")
    before = psycopg.connect(url, autocommit=True)
    before.execute("CREATE TABLE t (n int)")
    before.execute("INSERT INTO t VALUES (1)")

    postgres_cluster.restart()

    with pytest.raises(psycopg.OperationalError):
        before.execute("SELECT 1")
    before.close()
    with psycopg.connect(url, autocommit=True) as after:  # reconnect, same URL
        after.execute("INSERT INTO t VALUES (2)")
        rows = after.execute("SELECT n FROM t ORDER BY n").fetchall()
    assert rows == [(1,), (2,)]


def test_postgres_restart_with_a_gap_comes_back_on_the_same_port(
    postgres_cluster: PostgresCluster,
) -> None:
    url = postgres_cluster.create_database("faults")
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE t (n int)")

    postgres_cluster.restart(gap=1.0)

    assert postgres_cluster.running()
    with psycopg.connect(url) as connection:
        assert connection.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_postgres_stopped_refuses_connections_until_started(
    postgres_cluster: PostgresCluster,
) -> None:
    postgres_cluster.stop()

    assert not postgres_cluster.running()
    assert not postgres_answers(postgres_cluster.url())
    postgres_cluster.start()
    assert postgres_answers(postgres_cluster.url())


def test_running_postgres_removes_its_folder_and_frees_its_port() -> None:
    with running_postgres() as cluster:
        directory, port = cluster.directory, cluster.port
        assert postgres_answers(cluster.url())

    assert not directory.exists()
    assert not accepts_connections(port)
