"""Runs of `agent` in processes forked from one warm process, so a test can SIGKILL dozens of them cheaply.

`python tests/store/forker.py` imports the CLI and the `openai` package once, then reads one JSON job per line
on stdin and forks a child per job: it runs `agent ARGV` in `cwd` with `env`, its output in `log`. The forker
answers `{"pids": [...]}` at once and `{"codes": [...]}` (exit codes, -9 for SIGKILL) when the children end.
A child records every file it opens under `watch` in `opens`, one path per line, through an audit hook: how
a test counts the tool executions that really happened. The forker is single-threaded, so forking is safe.
"""

from __future__ import annotations

import importlib
import json
import os
import ssl
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

FORKER = Path(__file__)
PRELOADED = (
    "openai",
    "agentcli.agent",
    "agentcli.cli.app",
    "agentcli.cli.ask",
    "agentcli.cli.resume",
    "agentcli.cli.saving",
    "agentcli.llm.client",
    "agentcli.render.plain",
    "agentcli.store.recorder",
    "agentcli.store.loading",
)


def _child(job: dict[str, Any]) -> None:
    os.chdir(job["cwd"])
    os.environ.clear()
    os.environ.update(job["env"])
    output = os.open(job["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(output, 1)
    os.dup2(output, 2)
    opens = os.open(job["opens"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    watch = job["watch"]

    def audit(event: str, args: tuple[Any, ...]) -> None:
        if event == "open" and isinstance(args[0], str) and args[0].startswith(watch):
            os.write(opens, (args[0] + "\n").encode())

    sys.addaudithook(audit)
    from agentcli.cli.app import app

    code = 0
    try:
        app(args=job["argv"], prog_name="agent")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(code)


def _warm_up() -> None:
    """Pay here, once, what every child would pay again: lazy imports, caches, CA certificates."""
    from agentcli.agent import Agent
    from agentcli.config import Secret, Settings
    from agentcli.engine.state import RunState
    from tests.support.scripted_server import unused_base_url

    RunState.from_dict(RunState("warm up the loader").to_dict())  # resume builds it; the children share it
    # Every child makes an openai client, whose SSL context loads the CA certificates (~60 ms), for a server
    # that speaks plain HTTP: the children share one, made here.
    shared = ssl.create_default_context()
    ssl.create_default_context = lambda *args, **kwargs: shared
    settings = Settings(model="m", base_url=unused_base_url(), api_key=Secret("k"), max_retries=0, judge=False)
    with Agent(settings) as agent:  # a server that is down: the request is built and sent, nothing answers
        agent.run("warm up")


def main() -> None:
    for module in PRELOADED:  # imported once here, not in every child
        importlib.import_module(module)
    _warm_up()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        job = json.loads(line)
        pids = []
        for index in range(job.get("count", 1)):
            pid = os.fork()
            if pid == 0:
                _child({**job, "argv": job["argv"] if "argvs" not in job else job["argvs"][index]})
            pids.append(pid)
        print(json.dumps({"pids": pids}), flush=True)
        codes = [os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) for pid in pids]
        print(json.dumps({"codes": codes}), flush=True)


@dataclass
class Forker:
    """The test side: `start(...)` forks, `wait()` returns the exit codes."""

    process: subprocess.Popen[str]

    @classmethod
    def launch(cls) -> Forker:
        root = str(FORKER.resolve().parents[2])
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
        process = subprocess.Popen(
            [sys.executable, str(FORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env
        )
        forker = cls(process)
        assert forker._read() == {"ready": True}
        return forker

    def start(self, argvs: list[list[str]], *, cwd: Path, env: dict[str, str], log: Path, opens: Path) -> list[int]:
        job = {"argvs": argvs, "count": len(argvs), "cwd": str(cwd), "env": env, "log": str(log)}
        job.update(opens=str(opens), watch=str(cwd) + os.sep)
        stdin = self._stdin()
        stdin.write(json.dumps(job) + "\n")
        stdin.flush()
        pids: list[int] = self._read()["pids"]
        return pids

    def wait(self) -> list[int]:
        codes: list[int] = self._read()["codes"]
        return codes

    def close(self) -> None:
        self._stdin().close()
        self.process.wait(timeout=30)
        assert self.process.stdout is not None
        self.process.stdout.close()

    def _stdin(self) -> IO[str]:
        assert self.process.stdin is not None
        return self.process.stdin

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()  # the forker answers at once; a dead one gives ""
        assert line, "the forker process died"
        data: dict[str, Any] = json.loads(line)
        return data


if __name__ == "__main__":
    main()
