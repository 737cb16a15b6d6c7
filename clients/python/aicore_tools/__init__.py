"""aicore-sim's command-line tools (docs/tools.md). `aicore-submit` replays a job (the format of
asc.runtime.jobs, written by AICORE_SIM_DUMP_IR) on a daemon."""
