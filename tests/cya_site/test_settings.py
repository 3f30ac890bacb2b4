import importlib
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from django.core.exceptions import ImproperlyConfigured

import cya_site
from cya_site.env import env_bool, env_int, env_list, env_networks, env_rate, env_str

SETTINGS_PACKAGE = "cya_site.settings"
SETTINGS_DIR = Path(cya_site.__file__).with_name("settings")


@pytest.fixture
def bare_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> pytest.MonkeyPatch:
    """An environment like a bare machine's, with var/ in a temporary folder."""
    for name in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY", "DEBUG", "THROTTLE_AUTH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VAR_DIR", str(tmp_path))
    return monkeypatch


def _settings_modules() -> dict[str, ModuleType]:
    """The settings package and its subject modules, as sys.modules holds them now."""
    return {
        name: module
        for name, module in sys.modules.items()
        if name == SETTINGS_PACKAGE or name.startswith(f"{SETTINGS_PACKAGE}.")
    }


def _load_settings() -> dict[str, Any]:
    """The settings as a fresh import of the package computes them in this environment.

    The package and its modules are imported anew and then dropped again: sys.modules and
    the cya_site package get the originals back, so nothing else sees the fresh copy.
    """
    originals = _settings_modules()
    for name in originals:
        del sys.modules[name]
    try:
        fresh = importlib.import_module(SETTINGS_PACKAGE)
        return {name: value for name, value in vars(fresh).items() if name.isupper()}
    finally:
        for name in _settings_modules():
            del sys.modules[name]
        sys.modules.update(originals)
        if SETTINGS_PACKAGE in originals:
            cya_site.settings = originals[SETTINGS_PACKAGE]


def test_env_str_treats_blank_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CYA_TEST", "  ")

    assert env_str("CYA_TEST", "fallback") == "fallback"


@pytest.mark.parametrize(("raw", "expected"), [("1", True), ("Yes", True), ("off", False)])
def test_env_bool_reads_common_spellings(
    monkeypatch: pytest.MonkeyPatch, raw: str, expected: bool
) -> None:
    monkeypatch.setenv("CYA_TEST", raw)

    assert env_bool("CYA_TEST", not expected) is expected


def test_env_bool_refuses_anything_else(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CYA_TEST", "maybe")

    with pytest.raises(ImproperlyConfigured, match="CYA_TEST"):
        env_bool("CYA_TEST", False)


def test_env_int_reads_integers_and_refuses_others(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CYA_TEST", "42")
    assert env_int("CYA_TEST", 0) == 42

    monkeypatch.setenv("CYA_TEST", "4.2")
    with pytest.raises(ImproperlyConfigured, match="CYA_TEST must be an integer"):
        env_int("CYA_TEST", 0)


def test_env_int_enforces_a_minimum(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CYA_TEST", "-1")

    with pytest.raises(ImproperlyConfigured, match="at least 0"):
        env_int("CYA_TEST", 0, minimum=0)


def test_env_list_splits_on_commas(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CYA_TEST", "a.example, b.example,,")

    assert env_list("CYA_TEST", []) == ["a.example", "b.example"]
    monkeypatch.delenv("CYA_TEST")
    assert env_list("CYA_TEST", ["d"]) == ["d"]


def test_env_networks_reads_cidrs_and_refuses_a_typo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CYA_TEST", "127.0.0.0/8, ::1/128")
    assert env_networks("CYA_TEST", []) == ["127.0.0.0/8", "::1/128"]

    for typo in ("10.0.0.7/8", "localhost", "10.0.0.0/33"):  # host bits set; no network
        monkeypatch.setenv("CYA_TEST", typo)
        with pytest.raises(ImproperlyConfigured, match="CYA_TEST must list networks"):
            env_networks("CYA_TEST", [])


def test_env_rate_refuses_a_malformed_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CYA_TEST", "10 per minute")

    with pytest.raises(ImproperlyConfigured, match="CYA_TEST"):
        env_rate("CYA_TEST", "10/min")
    monkeypatch.setenv("CYA_TEST", "5/hour")
    assert env_rate("CYA_TEST", "10/min") == "5/hour"


def test_bare_machine_gets_sqlite_and_the_filesystem_broker(
    bare_env: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    loaded = _load_settings()

    assert loaded["DATABASES"]["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert loaded["DATABASES"]["default"]["NAME"] == str(tmp_path / "db.sqlite3")
    assert loaded["CELERY_BROKER_URL"] == "filesystem://localhost/"
    assert loaded["CELERY_BROKER_TRANSPORT"] == "cya_site.broker:Transport"
    options = loaded["CELERY_BROKER_TRANSPORT_OPTIONS"]
    assert options["data_folder_in"] == options["data_folder_out"]
    for folder in ("data_folder_in", "control_folder", "processed_folder"):
        assert Path(options[folder]).is_dir()
        assert Path(options[folder]).is_relative_to(tmp_path / "broker")
    assert loaded["CELERY_RESULT_BACKEND"] == f"file://{tmp_path / 'results'}"
    assert loaded["CACHES"]["default"]["BACKEND"].endswith("LocMemCache")


def test_redis_url_switches_broker_results_and_cache_to_redis(
    bare_env: pytest.MonkeyPatch,
) -> None:
    bare_env.setenv("REDIS_URL", "redis://127.0.0.1:6379/5")

    loaded = _load_settings()

    assert loaded["CELERY_BROKER_URL"] == "redis://127.0.0.1:6379/5"
    assert "CELERY_BROKER_TRANSPORT" not in loaded
    assert loaded["CELERY_RESULT_BACKEND"] == "redis://127.0.0.1:6379/5"
    assert loaded["CACHES"]["default"]["LOCATION"] == "redis://127.0.0.1:6379/5"


def test_tasks_are_acked_late_one_at_a_time_in_json(bare_env: pytest.MonkeyPatch) -> None:
    loaded = _load_settings()

    assert loaded["CELERY_TASK_ACKS_LATE"] is True
    assert loaded["CELERY_TASK_REJECT_ON_WORKER_LOST"] is True
    assert loaded["CELERY_WORKER_PREFETCH_MULTIPLIER"] == 1
    assert loaded["CELERY_ACCEPT_CONTENT"] == ["json"]


def test_database_url_selects_postgresql(bare_env: pytest.MonkeyPatch) -> None:
    bare_env.setenv("DATABASE_URL", "postgres://u:p@db.internal:6543/cya")

    database = _load_settings()["DATABASES"]["default"]

    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (database["HOST"], database["PORT"], database["NAME"]) == ("db.internal", 6543, "cya")


def test_postgresql_gives_up_connecting_to_a_hung_server_after_a_few_seconds(
    bare_env: pytest.MonkeyPatch,
) -> None:
    bare_env.setenv("DATABASE_URL", "postgres://u:p@db.internal:6543/cya")
    assert _load_settings()["DATABASES"]["default"]["OPTIONS"]["connect_timeout"] == 5

    bare_env.setenv("DB_CONNECT_TIMEOUT", "2")
    assert _load_settings()["DATABASES"]["default"]["OPTIONS"]["connect_timeout"] == 2

    bare_env.setenv("DATABASE_URL", "postgres://u:p@db.internal:6543/cya?connect_timeout=9")
    assert _load_settings()["DATABASES"]["default"]["OPTIONS"]["connect_timeout"] == 9


def test_an_unreadable_database_url_is_a_configuration_error(
    bare_env: pytest.MonkeyPatch,
) -> None:
    bare_env.setenv("DATABASE_URL", "nosuchdb://x")

    with pytest.raises(ImproperlyConfigured, match="DATABASE_URL"):
        _load_settings()


def test_secret_key_is_required_when_debug_is_off(bare_env: pytest.MonkeyPatch) -> None:
    bare_env.setenv("DEBUG", "false")

    with pytest.raises(ImproperlyConfigured, match="SECRET_KEY"):
        _load_settings()

    bare_env.setenv("SECRET_KEY", "s3cret")
    assert _load_settings()["SECRET_KEY"] == "s3cret"


def test_throttle_rates_come_from_the_environment(bare_env: pytest.MonkeyPatch) -> None:
    bare_env.setenv("THROTTLE_AUTH", "3/hour")

    rates = _load_settings()["REST_FRAMEWORK"]["DEFAULT_THROTTLE_RATES"]

    assert rates["auth"] == "3/hour"


def test_log_level_is_checked(bare_env: pytest.MonkeyPatch) -> None:
    bare_env.setenv("LOG_LEVEL", "info")
    assert _load_settings()["LOGGING"]["root"]["level"] == "INFO"

    bare_env.setenv("LOG_LEVEL", "loud")
    with pytest.raises(ImproperlyConfigured, match="LOG_LEVEL"):
        _load_settings()


def test_webhooks_reach_no_private_network_unless_the_environment_allows_one(
    bare_env: pytest.MonkeyPatch,
) -> None:
    bare_env.delenv("WEBHOOK_ALLOWED_NETWORKS", raising=False)
    assert _load_settings()["WEBHOOK_ALLOWED_NETWORKS"] == []

    bare_env.setenv("WEBHOOK_ALLOWED_NETWORKS", "10.20.0.0/16,fd00::/8")
    assert _load_settings()["WEBHOOK_ALLOWED_NETWORKS"] == ["10.20.0.0/16", "fd00::/8"]

    bare_env.setenv("WEBHOOK_ALLOWED_NETWORKS", "10.20.0.1/16")
    with pytest.raises(ImproperlyConfigured, match="WEBHOOK_ALLOWED_NETWORKS"):
        _load_settings()


def test_production_is_secure_by_default(bare_env: pytest.MonkeyPatch) -> None:
    """DEBUG off: cookies only over HTTPS, a year of HSTS with subdomains (issue 26)."""
    bare_env.setenv("DEBUG", "false")
    bare_env.setenv("SECRET_KEY", "s3cret")

    loaded = _load_settings()

    assert loaded["SESSION_COOKIE_SECURE"] is loaded["CSRF_COOKIE_SECURE"] is True
    assert loaded["SECURE_HSTS_SECONDS"] == 31_536_000
    assert loaded["SECURE_HSTS_INCLUDE_SUBDOMAINS"] is True
    assert loaded["SECURE_HSTS_PRELOAD"] is False
    assert loaded["SECURE_SSL_REDIRECT"] is False  # behind a proxy only with its header
    assert loaded["SECURE_PROXY_SSL_HEADER"] is None


def test_development_keeps_cookies_working_over_plain_http(bare_env: pytest.MonkeyPatch) -> None:
    loaded = _load_settings()

    assert loaded["SESSION_COOKIE_SECURE"] is False
    assert loaded["SECURE_HSTS_SECONDS"] == 0


def test_https_behind_a_proxy_is_set_by_the_environment(bare_env: pytest.MonkeyPatch) -> None:
    bare_env.setenv("PROXY_SSL_HEADER", "X-Forwarded-Proto")
    bare_env.setenv("SSL_REDIRECT", "true")
    bare_env.setenv("HSTS_SECONDS", "600")

    loaded = _load_settings()

    assert loaded["SECURE_PROXY_SSL_HEADER"] == ("HTTP_X_FORWARDED_PROTO", "https")
    assert loaded["SECURE_SSL_REDIRECT"] is True
    assert loaded["SECURE_HSTS_SECONDS"] == 600

    bare_env.setenv("PROXY_SSL_HEADER", "X-Forwarded-Proto: https")
    with pytest.raises(ImproperlyConfigured, match="PROXY_SSL_HEADER"):
        _load_settings()


def test_the_sign_in_lockout_comes_from_the_environment(bare_env: pytest.MonkeyPatch) -> None:
    bare_env.setenv("LOGIN_FAILURE_LIMIT", "8")
    bare_env.setenv("LOGIN_LOCKOUT_MINUTES", "30")

    loaded = _load_settings()

    assert loaded["AXES_FAILURE_LIMIT"] == 8
    assert loaded["AXES_COOLOFF_TIME"].total_seconds() == 30 * 60
    assert loaded["AXES_LOCKOUT_PARAMETERS"] == ["username", "ip_address"]


def test_env_example_lists_every_variable_settings_and_the_procfile_read() -> None:
    modules = sorted(SETTINGS_DIR.glob("*.py"))
    assert SETTINGS_DIR / "core.py" in modules
    source = "\n".join(module.read_text() for module in modules)
    read = set(re.findall(r'env_(?:str|bool|int|list|networks|rate)\(\s*"([A-Z_]+)"', source))
    root = SETTINGS_DIR.parent.parent
    procfile = set(re.findall(r"\$\{([A-Z_]+):-", (root / "Procfile").read_text()))
    listed = set(re.findall(r"^([A-Z_]+)=", (root / ".env.example").read_text(), flags=re.M))

    assert "WEB_PORT" in procfile
    assert read | procfile == listed


def test_mail_is_printed_in_development_and_sent_by_smtp_in_production(
    bare_env: pytest.MonkeyPatch,
) -> None:
    development = _load_settings()
    bare_env.setenv("DEBUG", "false")
    bare_env.setenv("SECRET_KEY", "x" * 60)
    bare_env.setenv("EMAIL_HOST", "mail.example.org")
    production = _load_settings()

    assert development["EMAIL_BACKEND"] == "django.core.mail.backends.console.EmailBackend"
    assert production["EMAIL_BACKEND"] == "django.core.mail.backends.smtp.EmailBackend"
    assert production["EMAIL_HOST"] == "mail.example.org"
    assert development["PASSWORD_RESET_TIMEOUT"] == 24 * 3600
