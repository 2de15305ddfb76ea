#!/usr/bin/env bash
# Open MPI's plm_rsh_agent for emulated nodes on one machine: Open MPI runs it as it would run
# ssh, "emulated-node.sh [options] HOST COMMAND...", to start its daemon on HOST. The command runs
# in a UTS and mount namespace of its own, with HOST as its host name and a /dev/shm of its own
# (a tmpfs), so each node's ranks see their own host and their own node registry; the network and
# the file systems stay the machine's. Needs root (unshare); used by tests/mpi/CMakeLists.txt.
set -euo pipefail
while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done  # ssh-style options, if any
host=${1:?emulated-node.sh: expected HOST COMMAND...}
shift
exec unshare --uts --mount --propagation private -- bash -c \
  'hostname "$1" && mount -t tmpfs -o size=256m,mode=1777 pfio-node-shm /dev/shm && eval "$2"' \
  emulated-node "$host" "$*"
