#!/usr/bin/env bash
# Composition impact analysis against a real kube-apiserver: 10, 100 and 1,000 XRs (each with two
# composed resources) using one Composition, then `xprender diff --composition` with a changed copy
# of it; prints the wall time of each run and the API requests the server counted for it
# (host/benches/impact.rs). The kube-apiserver is built once and cached (scripts/kube-apiserver.sh).
# Usage: scripts/bench-impact.sh [SIZES [RUNS]]   e.g. scripts/bench-impact.sh 10,100,1000 3
source "$(dirname "$0")/lib.sh"
cd "$ROOT"

need_apt golang-go make rsync etcd-server dpkg-dev xz-utils openssl debian-archive-keyring
XPRENDER_KUBE_APISERVER=$("$ROOT/scripts/kube-apiserver.sh") || die "cannot build kube-apiserver"
export XPRENDER_KUBE_APISERVER
command -v etcd >/dev/null || die "etcd is not installed"

step "release build"
nice -n 10 cargo build -q --release --locked -p xprender-host
export XPRENDER_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/xprender"
[ -x "$XPRENDER_BIN" ] || die "no binary at $XPRENDER_BIN"
export XPRENDER_BENCH_SIZES=${1:-10,100,1000}
export XPRENDER_BENCH_RUNS=${2:-3}

step "impact analysis against kube-apiserver ($XPRENDER_BENCH_SIZES XRs)"
nice -n 10 cargo bench -q --locked -p xprender-host --bench impact
