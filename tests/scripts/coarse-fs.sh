#!/usr/bin/env bash
# A file system that keeps whole-second times, for the staleness tests (docs/reliability.md,
# round 4): ext4 made with 128-byte inodes, on a loop device, mounted at DIR.
#   coarse-fs.sh mount DIR     makes DIR.img and mounts it at DIR (an earlier mount is replaced)
#   coarse-fs.sh umount DIR    unmounts it and removes DIR and DIR.img
#   coarse-fs.sh run DIR -- COMMAND...   runs COMMAND when DIR is mounted, else says why and
#                              exits 77 (ctest's SKIP_RETURN_CODE for the tests that need it)
# Where this machine cannot mount one (not root, no loop device), DIR is left a plain directory
# holding .coarse-fs-unavailable with the reason: the tests that need it then say so and skip,
# and the rule is still tested through its seam (FileOpen.TheRacyWindowOfWholeSecondTimes...).
set -uo pipefail
action=${1:-} dir=${2:-}
if [ -z "$dir" ] || { [ "$action" != mount ] && [ "$action" != umount ] && [ "$action" != run ]; }; then
  echo "usage: coarse-fs.sh mount|umount DIR, or run DIR -- COMMAND... (got '$*')" >&2
  exit 2
fi
if [ "$action" = run ]; then
  shift 2
  [ "${1:-}" = "--" ] && shift
  if [ -e "$dir/.coarse-fs-unavailable" ] || ! mountpoint -q "$dir"; then
    echo "skipped: no whole-second file system at $dir: $(cat "$dir/.coarse-fs-unavailable" 2>/dev/null || echo not mounted)"
    exit 77
  fi
  exec "$@"
fi
img="$dir.img"
if mountpoint -q "$dir" 2>/dev/null; then umount "$dir" || umount -l "$dir"; fi
if [ "$action" = umount ]; then
  rm -rf "$dir" "$img"
  exit 0
fi
rm -rf "$dir" "$img"
mkdir -p "$dir"
why=""
if ! truncate -s 128M "$img" 2>/dev/null; then
  why="cannot make $img"
elif ! out=$(mkfs.ext4 -q -F -I 128 "$img" 2>&1); then
  why="mkfs.ext4 -I 128 failed: $out"
elif ! out=$(mount -o loop "$img" "$dir" 2>&1); then
  why="mount -o loop failed (root and a loop device are needed): $out"
fi
if [ -n "$why" ]; then
  rm -f "$img"
  echo "$why" > "$dir/.coarse-fs-unavailable"
  echo "coarse-fs: no whole-second file system here: $why"
  exit 0
fi
chmod 1777 "$dir"
echo "coarse-fs: ext4 with 128-byte inodes (whole-second times) mounted at $dir"
