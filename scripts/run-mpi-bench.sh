#!/usr/bin/env bash
# MPI-IO reads under mpirun: pfio's ROMIO driver against the stock MPI-IO of the same MPI, in
# one invocation, alternated run by run (this shared VM's disk moves by 20 % between runs):
#   Open MPI 4.1: OMPIO (its default), ROMIO 3.2.1 (romio321), ad_prefetch (prefetch: name)
#   MPICH 4.0:    libmpich's ROMIO 4.0.2, ad_prefetch (libromio preloaded, prefetch: name)
# on one shared file of SIZE, NP ranks, blocks of BLOCK bytes, PER_CALL blocks per rank per
# call, interleaved (ior-hard) and random block order, collective (read_all) and independent
# (read) calls through a file view. The page cache is emptied before every run and every byte
# is checked. fio reads the same file sequentially (O_DIRECT, 1 MiB, depth 16) as the device's
# yardstick. Writes docs/results/mpi-bench/*.jsonl and re-renders docs/benchmarks.md.
#   scripts/run-mpi-bench.sh     (RUNS=3 SIZE=1G NP=4 BLOCK=47008 PER_CALL=100; PFIO_BENCH_DIR)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
runs=${RUNS:-3}; size=${SIZE:-1G}; np=${NP:-4}; block=${BLOCK:-47008}; per_call=${PER_CALL:-100}
dir=${PFIO_BENCH_DIR:-build}
mkdir -p "$dir"
data=$(cd "$dir" && pwd)/pfio-mpi-bench-$size.data
out=docs/results/mpi-bench
mkdir -p "$out"
rm -f "$out"/*.jsonl "$out"/*.json
here=$PWD
ompi_bin=build/examples/mpi-bench/pfio-mpi-bench.openmpi
mpich_bin=build/examples/mpi-bench/pfio-mpi-bench.mpich
ompi_components=$here/build/romio-adio/openmpi/components
romio_lib=$here/build/romio-adio/mpich/install/lib/libromio.so
ompi_sys=$(ompi_info --path pkglibdir --parsable | cut -d: -f3)
root=()
[ "$(id -u)" -eq 0 ] && root=(--allow-run-as-root)
common=(--file "$data" --size "$size" --block "$block" --per-call "$per_call")

# method name -> the command that runs the benchmark with it (extra arguments appended)
run() {
  local method=$1; shift
  case "$method" in
    ompio) OMPI_MCA_mca_base_component_path=$ompi_components:$ompi_sys \
             mpirun "${root[@]}" --oversubscribe -np "$np" "$ompi_bin" "$@" ;;
    romio321) OMPI_MCA_io=romio321 \
             mpirun "${root[@]}" --oversubscribe -np "$np" -x OMPI_MCA_io "$ompi_bin" "$@" ;;
    pfio-openmpi) OMPI_MCA_mca_base_component_path=$ompi_components:$ompi_sys \
             mpirun "${root[@]}" --oversubscribe -np "$np" "$ompi_bin" "$@" --prefix ;;
    romio-mpich) mpiexec.mpich -n "$np" "$mpich_bin" "$@" ;;
    pfio-mpich) mpiexec.mpich -n "$np" -genv LD_PRELOAD "$romio_lib" "$mpich_bin" "$@" --prefix ;;
  esac
}
methods=()
[ -x "$ompi_bin" ] && methods+=(ompio romio321 pfio-openmpi)
[ -x "$mpich_bin" ] && [ -f "$romio_lib" ] && methods+=(romio-mpich pfio-mpich)
[ ${#methods[@]} -gt 0 ] || { echo "run-mpi-bench: no MPI benchmark binary was built" >&2; exit 1; }

run "${methods[0]}" "${common[@]}" --make-only
cpu=$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -1)
dev=$(df --output=source "$data" | tail -1)
fs=$(df --output=fstype "$data" | tail -1)
cat >"$out/machine.json" <<JSON
{"cpu": "$cpu", "cores": $(nproc), "mem_gib": $(awk '/MemTotal/ {printf "%.1f", $2/1048576}' /proc/meminfo),
 "kernel": "$(uname -r)", "device": "$dev", "fs": "$fs", "file_size": "$size", "ranks": $np,
 "block": $block, "per_call": $per_call, "runs": $runs,
 "openmpi": "$(dpkg-query -W -f='${Version}' libopenmpi-dev 2>/dev/null)",
 "mpich": "$(dpkg-query -W -f='${Version}' libmpich-dev 2>/dev/null)"}
JSON
for i in $(seq 1 "$runs"); do
  echo "== run $i of $runs"
  sync
  echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
  fio --name=seqread --filename="$data" --rw=read --bs=1M --iodepth=16 --direct=1 \
    --ioengine=libaio --size="$size" --output-format=json --output="$out/fio-seq-$i.json" \
    >/dev/null
  /usr/bin/python3 -c "import json,sys; j=json.load(open(sys.argv[1]))['jobs'][0]['read']; \
print(f\"fio sequential O_DIRECT: {j['bw_bytes']/1048576:.1f} MiB/s\")" "$out/fio-seq-$i.json"
  for pattern in interleaved random; do
    for mode in collective independent; do
      for method in "${methods[@]}"; do
        run "$method" "${common[@]}" --pattern "$pattern" --mode "$mode" --label "$method" \
          --json "$here/$out/runs.jsonl"
      done
    done
  done
done
/usr/bin/python3 scripts/render_docs.py docs/results docs
