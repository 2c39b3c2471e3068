#!/usr/bin/env bash
# Cluster IO against a real API server: builds (once, cached) a kube-apiserver from Debian's
# kubernetes source package, then runs the ignored cluster tests, which start etcd and the
# apiserver on 127.0.0.1 and stop them when done (also on failure).
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

need_apt golang-go make rsync etcd-server dpkg-dev xz-utils openssl debian-archive-keyring docker-registry

step "kube-apiserver (cached in $XPRENDER_CACHE)"
XPRENDER_KUBE_APISERVER=$("$ROOT/scripts/kube-apiserver.sh") || die "cannot build kube-apiserver (see the output above)"
[ -x "$XPRENDER_KUBE_APISERVER" ] || die "kube-apiserver.sh printed no binary"
export XPRENDER_KUBE_APISERVER

# Debian's etcd unit may run a system etcd; the tests use their own on free ports.
command -v etcd >/dev/null || die "etcd is not installed"

step "cluster tests against a live kube-apiserver"
cd "$ROOT"
nice -n 10 cargo test -p xprender-host --locked --test cluster -- --ignored --test-threads=1
step "impact analysis (diff --composition) against a live kube-apiserver"
nice -n 10 cargo test -p xprender-host --locked --test impact -- --ignored --test-threads=1

step "diff reviews against a live kube-apiserver and its exported objects"
nice -n 10 cargo test -p xprender-host --locked --test review -- --ignored --test-threads=1

# The package manager: installs from a loopback registry (Debian's docker-registry) into the
# same kind of API server.
command -v docker-registry >/dev/null || die "docker-registry is not installed"
step "xpkg install against a live kube-apiserver and a loopback registry"
nice -n 10 cargo test -p xprender-host --locked --test xpkg_install -- --ignored --test-threads=1
