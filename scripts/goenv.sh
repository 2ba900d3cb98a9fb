# Sourced by every script that runs go: the toolchain named by go.work's
# toolchain line (go1.26.8, the machine's own, has reachable standard-library
# vulnerabilities; the go command fetches the named one from the module
# proxy). GOTOOLCHAIN set by the Makefile, or by the caller, is kept.
if [ -z "${GOTOOLCHAIN:-}" ] || [ "${GOTOOLCHAIN}" = local ]; then
  GOTOOLCHAIN=$(awk '$1 == "toolchain" { print $2 }' "$(dirname "${BASH_SOURCE[0]}")/../go.work")
  export GOTOOLCHAIN
fi
