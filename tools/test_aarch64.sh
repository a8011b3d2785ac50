#!/usr/bin/env bash
# The whole test suite built for 64-bit ARM (aarch64) and run under QEMU's user-mode
# emulation on an x86-64 Linux machine: what ARM runs (the portable count kernel, no
# prefetch, no popcnt dispatch) is checked for correctness end to end, through the binary,
# on a machine without ARM. Emulated times mean nothing: speed on ARM is measured only on
# ARM.
#
# Usage: tools/test_aarch64.sh [extra cargo test arguments]
# Needs root (or sudo) once: installs Debian's gcc-aarch64-linux-gnu, libc6-dev-arm64-cross,
# qemu-user and qemu-user-binfmt, adds the rustup target, and registers QEMU for aarch64
# executables with binfmt_misc so that tests which start the binary directly work too.
# Builds into a target directory of its own (target/aarch64-test).
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
triple=aarch64-unknown-linux-gnu
if ! command -v aarch64-linux-gnu-gcc >/dev/null || ! command -v qemu-aarch64 >/dev/null \
    || [ ! -e /usr/lib/binfmt.d/qemu-aarch64.conf ]; then
  echo "tools/test_aarch64.sh: installing the cross compiler and QEMU (apt-get)" >&2
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user \
    qemu-user-binfmt >/dev/null
fi
rustup target list --installed | grep -qx "$triple" || rustup target add "$triple"

binfmt=/proc/sys/fs/binfmt_misc
[ -e "$binfmt/register" ] || $sudo mount -t binfmt_misc binfmt_misc "$binfmt"
if [ ! -e "$binfmt/qemu-aarch64" ]; then
  $sudo sh -c "cat /usr/lib/binfmt.d/qemu-aarch64.conf > $binfmt/register"
fi

export QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
exec cargo test --release --target "$triple" --target-dir target/aarch64-test "$@"
