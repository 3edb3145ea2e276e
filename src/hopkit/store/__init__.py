"""The store: corpora, questions, gold, runs and per-question results in a database.

SQLite file by default, PostgreSQL by URL; nothing else in hopkit touches SQL.

    from hopkit.store import DBConnection, Store, RunSpec
    store = Store(DBConnection.from_config(url).get_session_factory())
"""

from hopkit.store.connection import DBConnection, mask_url
from hopkit.store.records import QueryResult, RunInfo, RunSpec
from hopkit.store.store import Store
from hopkit.store.verdicts import StoredVerdict, VerdictStore

__all__ = ["DBConnection", "QueryResult", "RunInfo", "RunSpec", "Store", "StoredVerdict", "VerdictStore",
           "mask_url"]
