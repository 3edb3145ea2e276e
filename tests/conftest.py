"""Settings and fixtures shared by the whole suite.

``db_url`` gives a test empty hopkit tables on SQLite and on PostgreSQL. PostgreSQL comes
from ``HOPKIT_TEST_POSTGRES_URL`` (``scripts/start-postgres.sh`` prints one). Without it the
PostgreSQL cases skip, unless ``HOPKIT_REQUIRE_POSTGRES=1`` (CI), where they fail. One
uniquely named database is created per test session and dropped at its end; every test
starts from empty tables.
"""

import logging
import os
import uuid
from typing import Iterator

import pytest
from hypothesis import settings
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from hopkit.store.models import Base

logger = logging.getLogger(__name__)

# Property tests check what a function does, not how fast: a per-example deadline only makes
# them fail when the machine is busy (CI beside a benchmark), so there is none.
settings.register_profile("hopkit", deadline=None)
settings.load_profile("hopkit")

ENV_POSTGRES_URL = "HOPKIT_TEST_POSTGRES_URL"
ENV_REQUIRE_POSTGRES = "HOPKIT_REQUIRE_POSTGRES"


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """URL of a fresh PostgreSQL database for this test session."""
    server_url = os.environ.get(ENV_POSTGRES_URL, "").strip()
    if not server_url:
        if os.environ.get(ENV_REQUIRE_POSTGRES) == "1":
            pytest.fail(f"{ENV_REQUIRE_POSTGRES}=1 but {ENV_POSTGRES_URL} is not set: start a "
                        "server with scripts/start-postgres.sh and export the URL it prints")
        pytest.skip(f"{ENV_POSTGRES_URL} is not set (scripts/start-postgres.sh prints one)")
    admin = create_engine(server_url, isolation_level="AUTOCOMMIT")
    name = f"hopkit_store_test_{uuid.uuid4().hex[:12]}"
    created = False
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        created = True
    except SQLAlchemyError as exc:
        if "permission denied" not in str(exc).lower():
            admin.dispose()
            pytest.fail(f"cannot use the PostgreSQL test server at {ENV_POSTGRES_URL}: {exc}")
        logger.warning("no CREATEDB privilege; testing in the database of %s", ENV_POSTGRES_URL)
    url = make_url(server_url)
    test_url = url.set(database=name) if created else url
    try:
        yield test_url.render_as_string(hide_password=False)
    finally:
        if created:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A URL with empty hopkit tables, on SQLite (temporary file) or PostgreSQL."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path_factory.mktemp('store') / 'hopkit.db'}"
    url: str = request.getfixturevalue("postgres_url")
    engine = create_engine(url)
    try:
        Base.metadata.drop_all(engine)
    finally:
        engine.dispose()
    return url


