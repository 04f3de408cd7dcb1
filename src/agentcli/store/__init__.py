"""Sessions saved in SQLite: every run of `ask` and `chat`, saved as each step ends, to list, show and resume.

    paths.py     where the data lives ($AGENTCLI_HOME), private directory and files
    schema.py    opening sessions.db: WAL, busy timeout, the one schema (a version 4 file is brought to it)
    db.py        Store: one transaction per save (a Snapshot), the lease, the queries of `agent sessions`
    recorder.py  SessionRecorder: what the Agent hands each step of a run to; it makes the snapshot
    loading.py   a saved session back into a Session, to continue it or to resume its last run

The engine does not know any of this exists: the Agent calls the recorder, the CLI builds it.
"""
