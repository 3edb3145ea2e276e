"""Choosing and reaching the database; clear errors when it cannot be reached."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url

from hopkit.errors import StoreError
from hopkit.store import DBConnection, Store
from hopkit.store.connection import mask_url

pytestmark = pytest.mark.unit


def test_explicit_url_wins_over_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOPKIT_DB_URL", "sqlite:////from/env.db")
    assert DBConnection.from_config("sqlite:////explicit.db").url == "sqlite:////explicit.db"
    assert DBConnection.from_config().url == "sqlite:////from/env.db"


def test_default_is_a_sqlite_file_in_hopkit_home(monkeypatch: pytest.MonkeyPatch,
                                                 tmp_path: Path) -> None:
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    monkeypatch.setenv("HOPKIT_HOME", str(tmp_path / "home"))
    connection = DBConnection.from_config()
    assert connection.url == f"sqlite:///{tmp_path / 'home' / 'hopkit.db'}"
    assert (tmp_path / "home").is_dir()


def test_default_home_is_dot_hopkit(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HOPKIT_DB_URL", raising=False)
    monkeypatch.delenv("HOPKIT_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    connection = DBConnection.from_config()
    assert connection.url == f"sqlite:///{tmp_path.resolve() / '.hopkit' / 'hopkit.db'}"
    assert (tmp_path / ".hopkit").is_dir()


def test_constructor_does_not_connect(tmp_path: Path) -> None:
    DBConnection(f"sqlite:///{tmp_path / 'never' / 'x.db'}")
    assert not (tmp_path / "never").exists()


def test_sqlite_connections_use_wal_and_foreign_keys(tmp_path: Path) -> None:
    connection = DBConnection(f"sqlite:///{tmp_path / 'sub' / 'x.db'}")
    try:
        with connection.engine.connect() as conn:
            assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
            assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
            assert conn.execute(text("PRAGMA busy_timeout")).scalar() == 30_000
    finally:
        connection.dispose()


def test_in_memory_sqlite_works_across_sessions() -> None:
    store = Store(DBConnection("sqlite://").get_session_factory())
    assert store.datasets() == []


def test_mask_url_hides_the_password() -> None:
    masked = mask_url("postgresql+psycopg://alice:s3cret@db.example:5432/hopkit")
    assert "s3cret" not in masked
    assert masked == "postgresql+psycopg://alice:***@db.example:5432/hopkit"
    assert "s3cret" not in mask_url("not a url://bob:s3cret@host/x")


def test_closed_postgres_port_gives_one_clear_error() -> None:
    url = "postgresql+psycopg://hopkit:topsecret@127.0.0.1:1/hopkit_test"
    with pytest.raises(StoreError) as caught:
        DBConnection(url).get_session_factory()
    message = str(caught.value)
    assert "postgresql+psycopg://hopkit:***@127.0.0.1:1/hopkit_test" in message
    assert "topsecret" not in message
    assert "HOPKIT_DB_URL" in message and "start-postgres.sh" in message


def test_unknown_host_gives_a_clear_error() -> None:
    url = "postgresql+psycopg://u:pw@no-such-host.invalid:5432/db?connect_timeout=3"
    with pytest.raises(StoreError, match="no-such-host.invalid"):
        DBConnection(url).create_all()


def test_unwritable_sqlite_location_gives_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    url = f"sqlite:///{blocker / 'sub' / 'hopkit.db'}"
    with pytest.raises(StoreError, match=f"{blocker}.*writable"):
        DBConnection(url).get_session_factory()


def test_sqlite_file_that_cannot_be_opened(tmp_path: Path) -> None:
    folder = tmp_path / "is-a-folder.db"
    folder.mkdir()
    with pytest.raises(StoreError, match="cannot connect to the database sqlite:///"):
        DBConnection(f"sqlite:///{folder}").create_all()


def test_missing_driver_and_malformed_url() -> None:
    with pytest.raises(StoreError, match="driver is not installed"):
        DBConnection("postgresql+nosuchdriver://u:pw@localhost/db").engine
    with pytest.raises(StoreError, match="malformed database URL"):
        DBConnection("this is not a url").engine


@pytest.mark.postgres
def test_wrong_password_names_the_url(postgres_url: str) -> None:
    url = make_url(postgres_url).set(password="definitely-wrong")
    with pytest.raises(StoreError) as caught:
        DBConnection(url.render_as_string(hide_password=False)).get_session_factory()
    message = str(caught.value)
    assert "definitely-wrong" not in message
    assert f"{url.host}:{url.port}" in message and "password" in message
