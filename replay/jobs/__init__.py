"""Jobs: what `agui replay`, `agui translate` and `agui resume` do, as library calls.

Each job composes the layers below (the large-file reader included, where it pays) and
returns results or hands them to a caller's view; the commands only parse options,
call one job, render and map errors to exit codes. Public names: `check_recordings`
(`replay.jobs.replay_check`, which the pytest plugin runs too), `open_translation`
(`replay.jobs.translate`), `resume_run` (`replay.jobs.resume`).
"""
