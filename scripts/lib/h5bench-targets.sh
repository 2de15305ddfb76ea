# Sourced by the pfio-h5bench scripts that run on this machine's disk and on the latency-bound
# test bed side by side (bench.sh h5bench-compute, bench.sh h5-cache-kind).
# pfio_h5bench_targets OUT PROFILE ROWS ROUNDS ARGS...: makes (or checks) the ROWS x ROWS file
# on the disk, runs `pfio-h5bench --file F --rows ROWS --rounds ROUNDS ARGS...` there and on the
# test bed of PROFILE (disk alone where this machine cannot host it), each target's runs into
# OUT/runs-TARGET.jsonl and its output into OUT/TARGET.log, takes the test bed down and writes
# OUT/machine.json (pfio_h5bench_machine, below). With INVOCATIONS=N (default 1) each target
# gets N invocations in a row, their runs together in runs-TARGET.jsonl (one invocation of a
# few rounds moved cells by 0.6-1.2x on this machine's disk between invocations).
source scripts/lib/disk-and-testbed.sh
pfio_h5bench_targets() {
  local out=$1 profile=$2 rows=$3 rounds=$4 target file hdf5
  shift 4
  local invocations=${INVOCATIONS:-1} i
  case $invocations in '' | *[!0-9]* | 0)
    echo "pfio_h5bench_targets: INVOCATIONS = $invocations: expected a whole number, 1 or more" >&2
    return 2 ;;
  esac
  local data=$PWD/build/pfio-h5bench-$rows.h5
  # Made (or checked) on the disk first: the test bed serves it read-only.
  build/bench/pfio-h5bench --file "$data" --rows "$rows" --datasets c8k --patterns rows \
    --methods sec2-cached --quiet >/dev/null
  pfio_disk_and_testbed "$out" "$profile" "$data"
  for target in "${pfio_targets[@]}"; do
    file=$data
    [ "$target" = disk ] || file=$pfio_served
    : >"$out/runs-$target.jsonl"
    : >"$out/$target.log"
    for ((i = 1; i <= invocations; i++)); do
      echo "== $target: pfio-h5bench $*, $rounds round(s), invocation $i of $invocations" |
        tee -a "$out/$target.log"
      build/bench/pfio-h5bench --file "$file" --rows "$rows" --rounds "$rounds" "$@" \
        --json "$PWD/$out/runs-$target-$i.jsonl" | tee -a "$out/$target.log"
      cat "$out/runs-$target-$i.jsonl" >>"$out/runs-$target.jsonl"
      rm -f "$out/runs-$target-$i.jsonl"
    done
  done
  bash scripts/testbed.sh down
  pfio_h5bench_machine "$out" "$rows" "$rounds" "$profile"
}

# pfio_h5bench_machine OUT ROWS ROUNDS PROFILE: writes OUT/machine.json (CPU, cores, kernel,
# HDF5's version, the sizes, the date, and the fields in $pfio_machine_extra when set).
pfio_h5bench_machine() {
  local out=$1 rows=$2 rounds=$3 profile=$4 hdf5
  hdf5=$(dpkg-query -W -f='${Version}' libhdf5-openmpi-dev 2>/dev/null)
  cat >"$out/machine.json" <<JSON
{"cpu": "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)", "cores": $(nproc),
 "kernel": "$(uname -r)", "rows": $rows, "rounds": $rounds, "hdf5": "$hdf5",
 "invocations": ${INVOCATIONS:-1},
 "profile": "$profile", "date": "$(date -u +%Y-%m-%d)"${pfio_machine_extra:+, $pfio_machine_extra}}
JSON
}
