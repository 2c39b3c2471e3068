# Crossplane packages against a real OCI registry: the CNCF distribution registry
# (Debian's docker-registry) on loopback, with htpasswd for the basic-auth case.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"

need_apt docker-registry apache2-utils
command -v docker-registry >/dev/null || die "docker-registry is not installed"
command -v htpasswd >/dev/null || die "htpasswd is not installed"

step "xpkg against a loopback registry"
cargo test -p xprender-host --locked --test xpkg_registry -- --ignored --test-threads 2
