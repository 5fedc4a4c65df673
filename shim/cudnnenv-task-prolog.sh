#!/bin/sh
# Slurm's task prolog runs a program with no arguments: this one prints what
# `cudnnenv slurm task-prolog` prints, for the selection in the task's folder
# (CUDNNENV_VERSION, .cudnnenv.toml, the global default). Installed beside
# cudnnenv; a link to it (bin/) is followed to find that cudnnenv. Slurm keeps
# the prolog's stderr from the user: errors come as `print` lines too.
here=$(dirname "$(readlink -f "$0")")
exec "$here/cudnnenv" slurm task-prolog --print-errors
