# Sourced by the benchmark scripts. On a VM whose balloon driver reports free memory to the host
# (virtio free page reporting), memory freed by one run (the page cache evicted before the next
# run, a finished run's buffers) is handed back to the host within a second or two, and the next
# run that allocates it waits while the host backs it again: touching 1 GiB took 0.54-0.57 s
# right after it was freed and 1.03 s three seconds later on this project's VM. Whether a run
# finds reported memory depends on timing, so runs came out fast or about twice as slow at random.
# When the kernel has the `min_free_ms` setting of page reporting (memory must stay free that
# long before it is reported), this raises it to 5 minutes for the benchmark (this kernel
# refuses 10) and puts the old value back on exit: memory free for longer is still reported.
# Elsewhere it does nothing.
# Prints what it did; the JSON of the run records it via BENCH_PAGE_REPORTING.
source "$(dirname "${BASH_SOURCE[0]}")/on-exit.sh"
pfio_reporting_knob=/sys/module/page_reporting/parameters/min_free_ms
if [ -w "$pfio_reporting_knob" ]; then
  pfio_reporting_old=$(cat "$pfio_reporting_knob")
  if echo 300000 >"$pfio_reporting_knob" 2>/dev/null; then
    pfio_on_exit 'echo "$pfio_reporting_old" >"$pfio_reporting_knob"'
    echo "free page reporting held back for the benchmark (min_free_ms $pfio_reporting_old -> 300000, restored on exit)"
    export BENCH_PAGE_REPORTING="min_free_ms 300000 (was $pfio_reporting_old)"
  fi
else
  export BENCH_PAGE_REPORTING="no page reporting setting on this machine"
fi
