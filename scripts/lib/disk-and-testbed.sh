# Sourced by the benchmark scripts that run on this machine's disk and on the latency-bound test
# bed (scripts/testbed.sh) side by side. After `pfio_disk_and_testbed OUT PROFILE DATA`:
#   pfio_targets  (disk) or (disk PROFILE): where the script runs
#   pfio_served   the test bed's path of DATA (empty without the test bed)
# The test bed is up (torn down on exit, also on failure or Ctrl-C) and checked with fio, whose
# lines go to OUT/fio-PROFILE.txt and .json. Where this machine cannot host it (no FUSE), it says
# so and the targets are the disk alone; any other failure of the set-up ends the script.
source scripts/lib/on-exit.sh
pfio_disk_and_testbed() {
  local out=$1 profile=$2 data=$3 status=0
  pfio_targets=(disk)
  pfio_served=
  pfio_on_exit 'bash scripts/testbed.sh down'
  pfio_served=$(bash scripts/testbed.sh up "$profile" "$data") || status=$?
  if [ "$status" -eq 0 ]; then
    bash scripts/testbed.sh check | tee "$out/fio-$profile.txt"
    cp build/testbed/fio.json "$out/fio-$profile.json"
    pfio_targets+=("$profile")
  elif [ "$status" -eq 3 ]; then
    echo "$(basename "$0"): the test bed cannot run on this machine (see above): the disk alone"
  else
    exit "$status"
  fi
}
