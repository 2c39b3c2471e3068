#!/usr/bin/env bash
# Builds a real kube-apiserver (Kubernetes 1.20.2) from Debian bookworm's `kubernetes` source package,
# offline, once; the binary is cached in $XPRENDER_CACHE and reused while present. Prints its path.
# Debian sources are fetched through a private apt configuration: the system's sources stay untouched.
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

KUBE_VERSION=1.20.2
OUT="$XPRENDER_CACHE/kube-apiserver-v$KUBE_VERSION"
BIN="$OUT/kube-apiserver"

# Outputs are captured, not piped into `grep -q`: under pipefail an early-exiting reader can
# fail the writer with SIGPIPE.
if [ -x "$BIN" ] && [[ $("$BIN" --version 2>/dev/null || true) == *"v$KUBE_VERSION"* ]]; then
  echo "$BIN"
  exit 0
fi

need_apt golang-go make rsync etcd-server dpkg-dev xz-utils debian-archive-keyring >&2
started=$(date +%s)

WORK="$XPRENDER_CACHE/kube-apiserver-build"
rm -rf "$WORK"
mkdir -p "$WORK/apt/lists/partial" "$WORK/apt/cache/archives/partial" "$WORK/apt/parts" "$WORK/src"

# Private apt state: one deb-src line, its own lists and cache.
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || die "missing $keyring (package debian-archive-keyring)"
echo "deb-src [signed-by=$keyring] http://deb.debian.org/debian bookworm main" >"$WORK/apt/sources.list"
APT_OPTS=(
  -o "Dir::Etc::SourceList=$WORK/apt/sources.list"
  -o "Dir::Etc::SourceParts=$WORK/apt/parts"
  -o "Dir::State::Lists=$WORK/apt/lists"
  -o "Dir::Cache=$WORK/apt/cache"
)
step "fetching Debian's kubernetes $KUBE_VERSION sources (private apt configuration)" >&2
apt-get "${APT_OPTS[@]}" update -qq >&2
(cd "$WORK/src" && apt-get "${APT_OPTS[@]}" source -qq --download-only kubernetes >&2)
dsc=$(find "$WORK/src" -maxdepth 1 -name 'kubernetes_*.dsc' | sed -n 1p)
[ -n "$dsc" ] || die "apt-get source fetched no kubernetes .dsc into $WORK/src"
# bookworm ships 1.20.5+really1.20.2: the 1.20.2 tree under a bumped version.
case "$dsc" in *"$KUBE_VERSION"*) ;; *) die "unexpected kubernetes source version: $dsc" ;; esac
(cd "$WORK/src" && dpkg-source -q -x "$dsc" kubernetes >&2)

# reflect2 1.0.1 (vendored) segfaults under Go >= 1.18 on the first custom resource create: use 1.0.2.
step "replacing vendored reflect2 with Debian's 1.0.2" >&2
(cd "$WORK" && apt-get download -qq golang-github-modern-go-reflect2-dev >&2)
deb=$(find "$WORK" -maxdepth 1 -name 'golang-github-modern-go-reflect2-dev_*.deb' | sed -n 1p)
[ -n "$deb" ] || die "could not download golang-github-modern-go-reflect2-dev"
dpkg-deb -x "$deb" "$WORK/reflect2"
r2new="$WORK/reflect2/usr/share/gocode/src/github.com/modern-go/reflect2"
r2old="$WORK/src/kubernetes/vendor/github.com/modern-go/reflect2"
[ -d "$r2new" ] && [ -d "$r2old" ] || die "reflect2 directories not found ($r2new, $r2old)"
rm -f "$r2old"/*.go "$r2old"/*.s
cp "$r2new"/*.go "$r2new"/*.s "$r2old"/
rm -f "$r2old"/*_test.go

# GOPATH mode with the generated OpenAPI code: only `make WHAT=...` runs the code generators.
step "building kube-apiserver (GOPATH mode, offline)" >&2
mkdir -p "$WORK/gopath/src/k8s.io"
ln -s "$WORK/src/kubernetes" "$WORK/gopath/src/k8s.io/kubernetes"
(
  cd "$WORK/gopath/src/k8s.io/kubernetes"
  export GOPATH="$WORK/gopath" GO111MODULE=off GOPROXY=off GOFLAGS= CGO_ENABLED=0
  export KUBE_GIT_VERSION="v$KUBE_VERSION" KUBE_GIT_TREE_STATE=clean
  nice -n 10 make WHAT=cmd/kube-apiserver >&2
)
built=$(find "$WORK/src/kubernetes/_output" -type f -name kube-apiserver -perm -u+x | sed -n 1p)
[ -n "$built" ] || die "make finished but produced no kube-apiserver binary"
mkdir -p "$OUT"
cp "$built" "$BIN.tmp" && mv "$BIN.tmp" "$BIN"
"$BIN" --version >&2
rm -rf "$WORK"
printf 'kube-apiserver built in %ss\n' "$(($(date +%s) - started))" >&2
echo "$BIN"
