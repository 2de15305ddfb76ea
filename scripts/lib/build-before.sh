# Sourced by the before/after scripts (bench.sh before-after, bench.sh h5-before-after).
# pfio_build_before REV: builds commit REV apart, in build-before/build from a git worktree in
# build-before/src (release, no tests), kept and reused while the worktree is at REV; sets
# before_sha and after_sha (HEAD, "+changes" when the tree differs from it).
# pfio_check_label SCRIPT: exits naming SCRIPT unless LABEL (a results folder's suffix) is empty or
# a word of a-z, 0-9 and -.
pfio_check_label() {
  case ${LABEL:-x} in
    *[!a-z0-9-]*) echo "$1: LABEL = $LABEL: expected a word of a-z, 0-9 and -" >&2; exit 2 ;;
  esac
}

pfio_build_before() {
  local rev=$1
  before_sha=$(git rev-parse --short "$rev")
  after_sha=$(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo "+changes")
  if [ "$(git -C build-before/src rev-parse HEAD 2>/dev/null)" != "$(git rev-parse "$rev")" ]; then
    rm -rf build-before
    git worktree prune
    git worktree add -f build-before/src "$rev" --detach >/dev/null
  fi
  cmake -S build-before/src -B build-before/build -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPFIO_BUILD_TESTS=OFF >/dev/null
  cmake --build build-before/build -j2 >/dev/null
}

# pfio_alternate_sides PAIRS TESTBED_PAIRS DATA RUN [SIDES]: on every target of
# pfio_disk_and_testbed (disk: PAIRS pairs on DATA; the test bed: TESTBED_PAIRS on its served
# copy), runs `RUN TARGET FILE SIDE TREE` for each of SIDES (default "before after") in turn,
# announcing each: side after on tree build, before on build-before/build, and again (the commit
# before run once more, for an A/A of the code being measured) on build-before/build too.
pfio_alternate_sides() {
  local pairs=$1 testbed_pairs=$2 data=$3 run=$4 sides=${5:-before after} target file n i side tree
  for target in "${pfio_targets[@]}"; do
    file=$data
    n=$pairs
    [ "$target" = disk ] || { file=$pfio_served; n=$testbed_pairs; }
    for ((i = 1; i <= n; ++i)); do
      for side in $sides; do
        tree=build
        [ "$side" = after ] || tree=build-before/build
        echo "== $target, $side ($([ "$side" = after ] && echo "$after_sha" || echo "$before_sha")), pair $i of $n"
        "$run" "$target" "$file" "$side" "$tree"
      done
    done
  done
}
