"""The kernel sandbox `run_command` runs its commands in, and MCP stdio servers theirs: Landlock, namespaces and
mounts, set up by a small launcher.

    detect(allow_network=False, workspace=None) -> Layers   which layers really work here (probed once, cached)
    wrap(command, workspace=, layers=)   the argv: `python -I -S -c LAUNCHER ...`, which execs `/bin/sh -c command`
    server_isolation() -> Layers         what an MCP stdio server gets here: pid and the hidden credentials
    serve(program, isolation=, ...)      the argv that starts an MCP server through the same launcher

The caller starts that argv in its own session (`start_new_session=True`) and, on a timeout or Ctrl-C, sends the
group TERM and then KILL. No bubblewrap, no Docker, no new dependency: the launcher makes the system calls itself
(`_ctypes`), so what it does can be read in two files (kernel.py, the calls; launcher.py, their order), run as one
program. What it mounts is worked out here, by the agent (git_paths.py, mounts.py). `AGENTCLI_SANDBOX=off` makes
detection find nothing (a machine without the sandbox: the run then says `sandbox: none`).

What holds, layer by layer (each one is tested for real, as root and as an ordinary user, in tests/sandbox/):

landlock (Landlock LSM, kernel 5.13+, any user)
    Writes (create, write, truncate, remove, rename, link, mknod, device ioctls) only beneath the workspace, the
    temporary directory, /dev/shm, and to /dev/null, /dev/zero, /dev/full, /dev/random, /dev/urandom. Reads and
    execution stay allowed everywhere: compilers need the system, and a command can read `.env` (~/.ssh and the
    like are covered by secrets-hidden).
    A hard link or a rename from outside into the workspace fails (REFER, handled from ABI 2; ABI 1 refuses every
    link or rename into another directory); writing through a symlink that points outside fails (the target is
    checked). From ABI 6 the command cannot signal any process outside the sandbox (the agent: `kill -STOP`) nor
    connect to an abstract Unix socket outside it (the user's X11 or D-Bus), even with --allow-network.
    The agent's /proc/<pid>/environ and mem are refused (a sandboxed process may not inspect one outside), but
    /proc/<pid>/cmdline stays readable, as it is for every process of the user: `--api-key` is visible there.
    Alone, it does not catch processes that leave the group (setsid, double fork): they outlive the call.
pid (own PID and mount namespace, a fresh /proc; as root directly, as a user inside a user namespace)
    The command's shell is the namespace's first process: when it exits, or the launcher is sent TERM, INT, HUP,
    QUIT or KILL (the last through PR_SET_PDEATHSIG), the kernel kills every process in the namespace, whatever
    session or group it made for itself, and none of them holds the output pipe afterwards. Its /proc shows only
    the namespace: the agent and every other process are invisible (no environ, cmdline or mem to read, no pid to
    signal). It gets pseudo-terminals of its own (a private devpts over /dev/pts and /dev/ptmx, which Landlock then
    opens to writes): the user's terminals are not there to write to or type into (TIOCSTI). Without this layer
    no pseudo-terminal can be opened under Landlock. The mount namespace is private: nothing reaches the caller.
    The command's shell is pid 1 there, so it ignores signals it has no handler for that come from inside
    (`kill $$`).
no-network (own network namespace with only loopback, brought up)
    No route anywhere: not the internet, not a server on the host's 127.0.0.1, not the host's abstract sockets.
    Servers a test suite starts on 127.0.0.1 inside the command still work. --allow-network leaves it out.
git-ro (the pid layer's mount namespace; shown where the workspace lies in a git repository)
    What git later runs with the user's rights, outside any sandbox, cannot be changed: `.git/hooks/` (made empty
    first where it is missing), `.git/config` and `config.worktree`, their counterparts of submodules
    (`.git/modules/**`) and worktrees (`.git/worktrees/*`, a worktree's `.git` file and its `commondir`), a
    `core.hooksPath` directory and the files `include.path` brings in are read-only; `.git` itself and the directories
    above it that a command could rename are pinned (mount points: no other `.git` can take their place); a
    `commondir` or `config.worktree` the command makes where there was none is removed when it ends (git would take
    it as a pointer to a repository of the command's making). `git add`, `commit`, `stash`, `switch` work as usual;
    `git config` (which writes `.git/config`) fails. Outside a git repository `git-ro` is not shown: a repository
    a command makes (`git init`) is the command's own, and protected from the next command on.
    Not covered: a hook the user installed that runs repository code (pre-commit, husky, lint-staged) runs what a
    command may have changed in the workspace; a repository the command makes inside the workspace, or a new
    submodule, is not protected; `.git/hooks` or `.git/config` that are symbolic links are protected at their target.
secrets-hidden (the pid layer's mount namespace)
    The user's credentials (`~/.ssh`, `~/.gnupg`, `~/.aws`, `~/.azure`, `~/.config/gcloud`, `~/.config/gh`,
    `~/.kube`, `~/.docker`, `~/.netrc`, `~/.git-credentials`, `~/.pypirc`, `~/.npmrc`, for $HOME and the user's
    home in the password database), agentcli's config directory and its data directory (sessions, $AGENTCLI_HOME)
    are covered: a directory by an empty read-only tmpfs, a file by /dev/null. A directory that holds the workspace
    or the temporary directory is left visible (the config file alone is hidden then). The rest of the file system
    stays readable: toolchains, caches, the workspace.
always, with any layer
    No new privileges (setuid programs do not raise them) and no capabilities at all in the command, even as root:
    root inside writes where Landlock allows, like anyone else, and cannot undo the layers.

No layer stops a connection to a Unix socket that has a path (the ssh-agent's SSH_AUTH_SOCK, the D-Bus session bus
under /run/user, /var/run/docker.sock): connecting is not a write Landlock can refuse (ABI 7), and the network
namespace does not cover the file system. A user in the `docker` group is root to any command that finds the socket.

Without a layer the name in the run's first line leaves it out (`landlock+pid+no-network+git-ro+secrets-hidden`,
`landlock+pid+no-network+secrets-hidden` outside a repository, `landlock`, `none`), and what it would have stopped
is possible: with `none` a command runs as a plain `/bin/sh -c` with the user's rights. Where the kernel allows no
mounts in the namespace, neither git-ro nor secrets-hidden is shown, and neither holds.
A layer that was detected but cannot be set up for one command stops that command (exit 125 and one line saying
why) rather than running it with less.
"""

from __future__ import annotations

from agentcli.sandbox.argv import serve, wrap
from agentcli.sandbox.layers import Layers
from agentcli.sandbox.probe import detect, server_isolation

__all__ = ["Layers", "detect", "serve", "server_isolation", "wrap"]
