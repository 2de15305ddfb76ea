#!/usr/bin/env bash
# The latency-bound test bed: a file on this machine's disk served as a file whose every read
# request waits a fixed time and of which only so many are in flight at once, the shape of a
# parallel file system's storage target. Built from existing tools only: nbdkit (its file plugin
# behind its delay filter) on a Unix socket, exposed as a file through FUSE by nbdfuse, with
# libfuse's worker-thread cap lifted by scripts/testbed/fuse_threads.c (an LD_PRELOAD).
#
# usage: bash scripts/testbed.sh up PROFILE FILE   serve FILE (read-only); prints the served path
#        bash scripts/testbed.sh check             fio's rates of the running target
#        bash scripts/testbed.sh status            whether it is up, its profile and path
#        bash scripts/testbed.sh down              unmount and stop (idempotent)
#        bash scripts/testbed.sh pids              the server's processes (nbdkit, nbdfuse), to
#                                                  count the CPU the target takes (pybench does)
#        bash scripts/testbed.sh profiles          the profiles
# Profiles (delay per read request; requests in flight at most):
#   pfs   2 ms, 64 in flight   (a PFS storage target over a network)
#   far   5 ms, 64 in flight   (a farther or busier one)
#   near  0.5 ms, 64 in flight (a fast network target)
# TESTBED_LOG=PATH logs every request the target serves (nbdkit's log filter: offset and size)
# to PATH, to count requests and their sizes. TESTBED_CPUS=LIST runs the server (nbdkit and
# nbdfuse) on those CPUs only (taskset -c LIST): on this 2-core VM a computation on the other
# core then does not share its core with the server, as it would not with a storage target on
# other machines (the kernel's FUSE work for the reader still runs where the reader runs).
# State lives in $TESTBED_DIR (default build/testbed): the mount point mnt/, the pid files, the
# socket, profile.env and fio.json. Exit status 3 means this machine cannot host the test bed
# (no /dev/fuse, no permission to mount, or a tool missing): callers say so and go on with the
# disk alone. Eviction works on the served file: POSIX_FADV_DONTNEED and drop_caches empty its
# page cache (nbdfuse mounts with kernel_cache, so an open does not).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
state=${TESTBED_DIR:-$here/build/testbed}
mnt=$state/mnt

die() { echo "testbed: $*" >&2; exit 1; }
unavailable() { echo "testbed: not available here: $*" >&2; exit 3; }

profile_params() { # name -> "delay_ms inflight"
  case "$1" in
    pfs) echo "2 64" ;;
    far) echo "5 64" ;;
    near) echo "0.5 64" ;;
    *) die "unknown profile '$1' (expected pfs, far or near)" ;;
  esac
}

is_up() { [ -f "$state/profile.env" ] && mountpoint -q "$mnt" 2>/dev/null; }

stop_pid() { # pidfile
  local f=$1 pid
  [ -f "$f" ] || return 0
  pid=$(cat "$f" 2>/dev/null || true)
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$f"
}

down() {
  if mountpoint -q "$mnt" 2>/dev/null; then
    fusermount3 -u "$mnt" 2>/dev/null || umount -l "$mnt" 2>/dev/null || true
  fi
  stop_pid "$state/nbdfuse.pid"
  stop_pid "$state/nbdkit.pid"
  rm -f "$state/nbd.sock" "$state/profile.env"
}

preload() { # builds the thread-cap preload when its source is newer
  local src=$here/scripts/testbed/fuse_threads.c so=$state/fuse_threads.so
  if [ ! -f "$so" ] || [ "$src" -nt "$so" ]; then
    cc -Wall -Wextra -O2 -shared -fPIC -o "$so" "$src" -lfuse3 ||
      unavailable "cannot build $src (libfuse3-dev missing? run scripts/setup.sh)"
  fi
  echo "$so"
}

tune() { # raises the FUSE connection's background-request limit and readahead
  local inflight=$1 dev minor
  dev=$(mountpoint -d "$mnt") # "0:NN"
  minor=${dev#*:}
  if [ ! -d /sys/fs/fuse/connections/"$minor" ]; then
    mount -t fusectl fusectl /sys/fs/fuse/connections 2>/dev/null || true
  fi
  if [ -w /sys/fs/fuse/connections/"$minor"/max_background ]; then
    echo "$inflight" >/sys/fs/fuse/connections/"$minor"/max_background
    echo $((inflight * 3 / 4)) >/sys/fs/fuse/connections/"$minor"/congestion_threshold
  else
    echo "testbed: warning: cannot raise max_background of FUSE connection $minor (not root?):" \
      "at most 12 background requests in flight" >&2
  fi
  if [ -w /sys/class/bdi/"$dev"/read_ahead_kb ]; then
    echo 8192 >/sys/class/bdi/"$dev"/read_ahead_kb
  else
    echo "testbed: warning: cannot set read_ahead_kb of bdi $dev" >&2
  fi
}

up() {
  local profile=$1 file=$2 delay inflight so name i
  read -r delay inflight < <(profile_params "$profile")
  [ -f "$file" ] || die "FILE '$file' is not a regular file: expected the file to serve"
  [ -e /dev/fuse ] || unavailable "/dev/fuse is missing"
  for tool in nbdkit nbdfuse fusermount3 fio mountpoint; do
    command -v "$tool" >/dev/null || unavailable "'$tool' is not installed (run scripts/setup.sh)"
  done
  mkdir -p "$state" "$mnt"
  down
  so=$(preload)
  file=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
  name=$(basename "$file")
  # nbdkit: one thread per connection is enough, nbdfuse sends one request per connection at a
  # time; the delay filter sleeps in that thread, so in-flight requests = connections in use.
  local log=() logfile=()
  [ -z "${TESTBED_LOG:-}" ] || { log=(--filter=log); logfile=(logfile="$TESTBED_LOG"); }
  local pin=()
  [ -z "${TESTBED_CPUS:-}" ] || pin=(taskset -c "$TESTBED_CPUS")
  "${pin[@]}" nbdkit --unix "$state/nbd.sock" --pidfile "$state/nbdkit.pid" -r -t 2 \
    "${log[@]}" --filter=delay file "$file" rdelay="${delay}ms" "${logfile[@]}" ||
    unavailable "nbdkit did not start"
  for i in $(seq 100); do [ -S "$state/nbd.sock" ] && break; sleep 0.05; done
  [ -S "$state/nbd.sock" ] || { down; unavailable "nbdkit's socket did not appear"; }
  # nbdfuse uses C-1 of its C connections for requests (one per blocked FUSE worker).
  LD_PRELOAD=$so PFIO_TESTBED_FUSE_THREADS=$((inflight * 2)) \
    setsid "${pin[@]}" nbdfuse -r -C $((inflight + 1)) -o kernel_cache -P "$state/nbdfuse.pid" \
    "$mnt/$name" --unix "$state/nbd.sock" >"$state/nbdfuse.log" 2>&1 </dev/null &
  for i in $(seq 200); do [ -s "$state/nbdfuse.pid" ] && mountpoint -q "$mnt" && break; sleep 0.05; done
  if ! mountpoint -q "$mnt"; then
    cat "$state/nbdfuse.log" >&2 || true
    down
    unavailable "nbdfuse could not mount $mnt (FUSE not permitted here?)"
  fi
  tune "$inflight"
  cat >"$state/profile.env" <<ENV
profile=$profile
delay_ms=$delay
inflight=$inflight
backing=$file
served=$mnt/$name
cpus=${TESTBED_CPUS:-all}
ENV
  echo "$mnt/$name"
}

fio_one() { # label, fio args...
  local label=$1
  shift
  fio --output-format=json --name="$label" --filename="$served" --readonly --direct=1 \
    --time_based --runtime="${TESTBED_FIO_SECONDS:-3}" --ramp_time=0.5 "$@" >"$state/fio-$label.json"
}

check() {
  is_up || die "not up (bash scripts/testbed.sh up PROFILE FILE first)"
  # shellcheck disable=SC1091
  source "$state/profile.env"
  fio_one qd1-4k --rw=randread --bs=4k --ioengine=psync --iodepth=1
  fio_one qd32-4k --rw=randread --bs=4k --ioengine=libaio --iodepth=32
  fio_one qd1-1m --rw=read --bs=1m --ioengine=psync --iodepth=1
  fio_one qd16-1m --rw=read --bs=1m --ioengine=libaio --iodepth=16
  /usr/bin/python3 - "$state" "$profile" "$delay_ms" "$inflight" "${cpus:-all}" <<'PY'
import json, sys
state, profile, delay, inflight, cpus = sys.argv[1:6]
out = {"profile": profile, "delay_ms": float(delay), "inflight": int(inflight), "tool": "fio",
       "server_cpus": cpus}
for label in ("qd1-4k", "qd32-4k", "qd1-1m", "qd16-1m"):
    r = json.load(open(f"{state}/fio-{label}.json"))["jobs"][0]["read"]
    out[label] = {"iops": round(r["iops"]), "mib_s": round(r["bw_bytes"] / 2**20, 1),
                  "lat_ms": round(r["clat_ns"]["mean"] / 1e6, 3)}
json.dump(out, open(f"{state}/fio.json", "w"))
pinned = "" if cpus == "all" else f", server on CPU {cpus}"
print(f"testbed {profile} ({delay} ms, {inflight} in flight{pinned}), fio direct reads: "
      f"4 KiB random QD1 {out['qd1-4k']['iops']} IOPS ({out['qd1-4k']['lat_ms']} ms), "
      f"QD32 {out['qd32-4k']['iops']} IOPS; 1 MiB sequential QD1 {out['qd1-1m']['mib_s']} MiB/s, "
      f"QD16 {out['qd16-1m']['mib_s']} MiB/s")
PY
}

status() {
  if is_up; then
    # shellcheck disable=SC1091
    source "$state/profile.env"
    echo "testbed: up, profile $profile ($delay_ms ms, $inflight in flight), $backing served as $served"
  else
    echo "testbed: down"
    return 1
  fi
}

case "${1:-}" in
  up) [ $# -eq 3 ] || die "usage: testbed.sh up PROFILE FILE"; up "$2" "$3" ;;
  down) down ;;
  check) check ;;
  status) status ;;
  pids) is_up || die "down: no server processes"; cat "$state/nbdkit.pid" "$state/nbdfuse.pid" ;;
  profiles) for p in pfs far near; do echo "$p $(profile_params $p | awk '{print $1 " ms, " $2 " in flight"}')"; done ;;
  *) die "usage: testbed.sh up PROFILE FILE | check | status | pids | down | profiles" ;;
esac
