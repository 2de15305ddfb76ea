# Sourced by the benchmark scripts: `pfio_machine_fields DATA` prints the JSON fields (no braces)
# that say which machine a run was on: CPU, cores, memory, kernel, and the device and file
# system holding DATA. The scripts add their own fields (sizes, rounds, versions) around them.
# `pfio_commit` prints the commit the run's build came from: HEAD's short hash, "+changes" when
# what is built (the library, the front ends, the benchmarks) differs from it; "unknown" outside
# git.
pfio_machine_fields() {
  local data=$1
  printf '"cpu": "%s", "cores": %s, "mem_gib": %s, "kernel": "%s", "disk": "%s %s"' \
    "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)" "$(nproc)" \
    "$(awk '/MemTotal/ {printf "%.1f", $2/1048576}' /proc/meminfo)" "$(uname -r)" \
    "$(df --output=source "$data" | tail -1)" "$(df --output=fstype "$data" | tail -1)"
}

pfio_commit() {
  local head
  head=$(git rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
  git diff --quiet HEAD -- src romio-adio hdf5-vfd bench include 2>/dev/null || head+=+changes
  echo "$head"
}
