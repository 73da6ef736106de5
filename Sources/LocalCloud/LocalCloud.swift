// LocalCloud: CloudKit on SQLite.
