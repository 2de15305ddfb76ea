# Sourced by scripts: pfio_on_exit CMD runs CMD when the script ends, however it ends (normal
# exit, a failed command under set -e, Ctrl-C, kill), every registered command in the order
# registered, each even when an earlier one failed.
if [ -z "${pfio_on_exit_loaded:-}" ]; then
  pfio_on_exit_loaded=1
  pfio_exit_cmds=()
  pfio_run_exit_cmds() {
    local c
    for c in "${pfio_exit_cmds[@]}"; do eval "$c" || true; done
  }
  pfio_on_exit() {
    pfio_exit_cmds+=("$1")
    trap pfio_run_exit_cmds EXIT
    trap 'exit 130' INT TERM
  }
fi
