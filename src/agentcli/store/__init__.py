"""Sessions saved in SQLite: every run of `ask` and `chat`, checkpointed as it goes, to list, show and resume.

    paths.py     where the data lives ($AGENTCLI_HOME), private directory and files
    schema.py    opening sessions.db: WAL, busy timeout, schema version and forward migrations
    db.py        Store: the tables, one transaction per checkpoint, the queries of `agent sessions`
    recorder.py  SessionRecorder: what the Agent calls with every event and move; turns them into checkpoints
    loading.py   a saved session back into a Session, to continue it or to resume its last run

The engine does not know any of this exists: the Agent calls the recorder, the CLI builds it.
"""
