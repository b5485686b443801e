from store._db import db_url, pg_database  # noqa: F401  (fixtures)
