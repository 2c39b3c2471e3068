//! The legacy `.registry/` package layout, translated into a package record and installed CRDs.

use std::collections::BTreeMap;

use anyhow::{Context as _, Result, anyhow, bail};
use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::package::parse_stream;
use super::tarfs::Filesystem;

const ROOT: &str = ".registry";
const RESOURCES: &str = ".registry/resources";
const ICON_TYPES: &[(&str, &str)] = &[
    ("svg", "image/svg+xml"),
    ("png", "image/png"),
    ("jpg", "image/jpeg"),
    ("gif", "image/gif"),
];
const ANN: &str = "packages.crossplane.io/";

/// The translated package: its record (metadata, owned CRDs, controller) and CRDs as installed.
#[derive(Debug, Clone)]
pub(crate) struct Legacy {
    pub(crate) record: Value,
    pub(crate) crds: Vec<Value>,
}

pub(crate) fn is_legacy(fs: &Filesystem) -> bool {
    fs.exists(ROOT)
}

fn yaml_doc(fs: &Filesystem, path: &str) -> Result<Option<Value>> {
    let Some(bytes) = fs.read(path) else {
        return Ok(None);
    };
    let text = std::str::from_utf8(bytes).map_err(|_| anyhow!("{path} is not UTF-8 text"))?;
    let mut docs = parse_stream(text, path)?;
    match docs.len() {
        0 => Ok(Some(Value::Object(Map::new()))),
        1 if docs[0].is_object() => Ok(docs.pop()),
        _ => bail!("{path} must hold one YAML object"),
    }
}

fn data_uri(media: &str, bytes: &[u8]) -> String {
    format!(
        "data:{media};base64,{}",
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// The preferred icon named `<prefix>icon.<ext>` in `dir`, as (media type, bytes).
fn icon_in<'a>(fs: &'a Filesystem, dir: &str, prefix: &str) -> Option<(&'static str, &'a [u8])> {
    ICON_TYPES.iter().find_map(|(ext, media)| {
        fs.read(&format!("{dir}/{prefix}icon.{ext}"))
            .map(|b| (*media, b))
    })
}

/// `dir` and its ancestors up to `stop`, deepest first.
fn ancestors<'a>(dir: &'a str, stop: &'a str) -> impl Iterator<Item = &'a str> + 'a {
    let mut next = Some(dir);
    std::iter::from_fn(move || {
        let d = next?;
        next = if d == stop {
            None
        } else {
            d.rsplit_once('/')
                .map(|(p, _)| p)
                .filter(|p| p.len() >= stop.len())
        };
        Some(d)
    })
}

fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, f)| f)
}

fn str_field<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty())
}

/// Translates the `.registry/` tree. `tag` is the image tag (the package version when app.yaml
/// names none); `image` fills a controller container without an image.
pub(crate) fn translate(fs: &Filesystem, tag: Option<&str>, image: Option<&str>) -> Result<Legacy> {
    let app = yaml_doc(fs, ".registry/app.yaml")?
        .ok_or_else(|| anyhow!("legacy package: .registry/app.yaml is required"))?;
    let version = match (str_field(&app, "version"), tag) {
        (Some(v), Some(t)) if v != t => {
            bail!("legacy package: app.yaml version {v:?} does not match the image tag {t:?}")
        }
        (Some(v), _) => Some(v.to_owned()),
        (None, t) => t.map(str::to_owned),
    };

    let mut spec = Map::new();
    for k in [
        "title",
        "overviewShort",
        "overview",
        "readme",
        "maintainers",
        "owners",
        "company",
        "category",
        "keywords",
        "website",
        "source",
        "license",
        "packageType",
        "permissionScope",
        "dependsOn",
    ] {
        if let Some(v) = app.get(k).filter(|v| !v.is_null()) {
            spec.insert(k.to_owned(), v.clone());
        }
    }
    if let Some(v) = version {
        spec.insert("version".into(), Value::String(v));
    }
    let package_icon = icon_in(fs, ROOT, "");
    if let Some((media, bytes)) = package_icon {
        let data = base64::engine::general_purpose::STANDARD.encode(bytes);
        spec.insert(
            "icons".into(),
            json!([{"base64Data": data, "mediatype": media}]),
        );
    }

    let crds = install_crds(fs, str_field(&app, "title"), package_icon)?;
    let owned: Vec<Value> = crds
        .iter()
        .flat_map(|c| {
            let group = c
                .pointer("/spec/group")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let kind = c
                .pointer("/spec/names/kind")
                .cloned()
                .unwrap_or(Value::Null);
            crd_versions(c)
                .into_iter()
                .map(move |v| json!({"apiVersion": format!("{group}/{v}"), "kind": kind}))
        })
        .collect();
    spec.insert("customresourcedefinitions".into(), Value::Array(owned));

    if let Some(mut deployment) = yaml_doc(fs, ".registry/install.yaml")? {
        if deployment.get("kind").and_then(Value::as_str) != Some("Deployment") {
            bail!("legacy package: .registry/install.yaml must hold a Deployment");
        }
        if let (Some(image), Some(containers)) = (
            image,
            deployment
                .pointer_mut("/spec/template/spec/containers")
                .and_then(Value::as_array_mut),
        ) {
            for c in containers.iter_mut().filter_map(Value::as_object_mut) {
                if c.get("image")
                    .and_then(Value::as_str)
                    .is_none_or(str::is_empty)
                {
                    c.insert("image".into(), Value::String(image.to_owned()));
                }
            }
        }
        let name = deployment
            .pointer("/metadata/name")
            .cloned()
            .unwrap_or(Value::Null);
        let dspec = deployment.get("spec").cloned().unwrap_or(Value::Null);
        spec.insert(
            "controller".into(),
            json!({"deployment": {"name": name, "spec": dspec}}),
        );
    }

    let mut record = json!({"apiVersion": "packages.crossplane.io/v1alpha1", "kind": "Package"});
    if let Some(name) = image
        .and_then(|i| i.rsplit('/').next())
        .map(|n| n.split([':', '@']).next().unwrap_or(n))
    {
        record["metadata"] = json!({"name": name});
    }
    record["spec"] = Value::Object(spec);
    Ok(Legacy { record, crds })
}

fn crd_versions(crd: &Value) -> Vec<String> {
    let mut out: Vec<String> = crd
        .pointer("/spec/versions")
        .and_then(Value::as_array)
        .map(|vs| {
            vs.iter()
                .filter_map(|v| str_field(v, "name"))
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    if out.is_empty() {
        out.extend(
            crd.pointer("/spec/version")
                .and_then(Value::as_str)
                .map(str::to_owned),
        );
    }
    out
}

/// Does a prefixed metadata file name (`<kind>[.<version>].<suffix>`) apply to this CRD?
fn prefix_matches(name: &str, suffix: &str, kind: &str, versions: &[String]) -> bool {
    let Some(prefix) = name.strip_suffix(suffix) else {
        return false;
    };
    let prefix = prefix.trim_end_matches('.');
    if prefix.is_empty() {
        return true;
    }
    let mut parts = prefix.split('.');
    let k = parts.next().unwrap_or_default();
    let v = parts.next();
    parts.next().is_none()
        && k.eq_ignore_ascii_case(kind)
        && v.is_none_or(|v| versions.iter().any(|x| x == v))
}

fn install_crds(
    fs: &Filesystem,
    package_title: Option<&str>,
    package_icon: Option<(&str, &[u8])>,
) -> Result<Vec<Value>> {
    // Directory -> the metadata files it holds, by file name.
    let mut dirs: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut crd_files = Vec::new();
    for (path, _) in fs.files_under(RESOURCES) {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        dirs.entry(dir).or_default().push(path);
        if file_name(path).ends_with("crd.yaml") {
            crd_files.push(path);
        }
    }
    if crd_files.is_empty() {
        bail!("legacy package: no CRDs (*crd.yaml) under {RESOURCES}");
    }
    let root_ui = fs.read(".registry/ui-schema.yaml");
    let mut crds = Vec::new();
    for path in crd_files {
        let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
        let text = std::str::from_utf8(fs.read(path).unwrap_or_default())
            .map_err(|_| anyhow!("{path} is not UTF-8 text"))?;
        for (i, mut crd) in parse_stream(text, path)?.into_iter().enumerate() {
            if crd.get("kind").and_then(Value::as_str) != Some("CustomResourceDefinition") {
                bail!(
                    "legacy package: {path} document {} is not a CustomResourceDefinition",
                    i + 1
                );
            }
            let kind = crd
                .pointer("/spec/names/kind")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let versions = crd_versions(&crd);
            let mut ann: BTreeMap<String, String> = BTreeMap::new();
            if let Some(t) = package_title {
                ann.insert(format!("{ANN}package-title"), t.to_owned());
            }
            let chain: Vec<&str> = ancestors(dir, RESOURCES).collect();
            group_annotations(fs, &chain, path, &mut ann)?;
            resource_annotations(fs, &dirs, &chain, &kind, &mut ann)?;
            if let Some(ui) = ui_schema(fs, &dirs, &chain, root_ui, &kind, &versions) {
                ann.insert(format!("{ANN}ui-schema"), ui);
            }
            // The nearest icon wins: kind-prefixed, then plain, then the package's own.
            let lower = kind.to_ascii_lowercase();
            let icon = chain
                .iter()
                .find_map(|d| icon_in(fs, d, &format!("{lower}.")).or_else(|| icon_in(fs, d, "")))
                .or(package_icon);
            if let Some((media, bytes)) = icon {
                ann.insert(format!("{ANN}icon-data-uri"), data_uri(media, bytes));
            }
            if !label_and_annotate(&mut crd, ann, path, i)? {
                continue;
            }
            crds.push(crd);
        }
    }
    Ok(crds)
}

/// The annotations of the nearest `group.yaml` above a CRD.
fn group_annotations(
    fs: &Filesystem,
    chain: &[&str],
    path: &str,
    ann: &mut BTreeMap<String, String>,
) -> Result<()> {
    let group = chain
        .iter()
        .find_map(|d| yaml_doc(fs, &format!("{d}/group.yaml")).transpose());
    if let Some(group) = group {
        let group = group.with_context(|| format!("reading the group metadata for {path}"))?;
        for (field, key) in [
            ("title", "group-title"),
            ("overview", "group-overview"),
            ("overviewShort", "group-overview-short"),
            ("readme", "group-readme"),
        ] {
            if let Some(v) = str_field(&group, field) {
                ann.insert(format!("{ANN}{key}"), v.to_owned());
            }
        }
    }
    Ok(())
}

/// The annotations of the nearest `*resource.yaml` whose `id` is the CRD's kind.
fn resource_annotations(
    fs: &Filesystem,
    dirs: &BTreeMap<&str, Vec<&str>>,
    chain: &[&str],
    kind: &str,
    ann: &mut BTreeMap<String, String>,
) -> Result<()> {
    let mut resource = None;
    'find: for d in chain {
        for f in dirs.get(d).into_iter().flatten() {
            if file_name(f).ends_with("resource.yaml") {
                let r = yaml_doc(fs, f)?.unwrap_or(Value::Null);
                if str_field(&r, "id") == Some(kind) {
                    resource = Some(r);
                    break 'find;
                }
            }
        }
    }
    if let Some(r) = resource {
        for (field, key) in [
            ("category", "resource-category"),
            ("title", "resource-title"),
            ("titlePlural", "resource-title-plural"),
            ("overview", "resource-overview"),
            ("overviewShort", "resource-overview-short"),
            ("readme", "resource-readme"),
        ] {
            if let Some(v) = str_field(&r, field) {
                ann.insert(format!("{ANN}{key}"), v.to_owned());
            }
        }
    }
    Ok(())
}

/// A CRD's UI schemas, accumulated from the package root down to the CRD's own directory.
fn ui_schema(
    fs: &Filesystem,
    dirs: &BTreeMap<&str, Vec<&str>>,
    chain: &[&str],
    root_ui: Option<&[u8]>,
    kind: &str,
    versions: &[String],
) -> Option<String> {
    let mut ui: Vec<String> = root_ui
        .map(|b| String::from_utf8_lossy(b).into_owned())
        .into_iter()
        .collect();
    for d in chain.iter().rev() {
        for f in dirs.get(d).into_iter().flatten() {
            if prefix_matches(file_name(f), "ui-schema.yaml", kind, versions) {
                ui.push(String::from_utf8_lossy(fs.read(f).unwrap_or_default()).into_owned());
            }
        }
    }
    if ui.is_empty() {
        return None;
    }
    let docs: Vec<&str> = ui
        .iter()
        .map(|s| s.trim_start_matches("---\n").trim_end())
        .collect();
    Some(format!("{}\n", docs.join("\n---\n")))
}

/// Labels a CRD as the package manager's and adds `ann` to its annotations; `false` for a
/// document that is not an object.
fn label_and_annotate(
    crd: &mut Value,
    ann: BTreeMap<String, String>,
    path: &str,
    i: usize,
) -> Result<bool> {
    let Some(meta) = crd
        .as_object_mut()
        .map(|o| o.entry("metadata").or_insert_with(|| json!({})))
    else {
        return Ok(false);
    };
    let Some(meta) = meta.as_object_mut() else {
        bail!("{path} document {}: metadata is not an object", i + 1)
    };
    let labels = meta.entry("labels").or_insert_with(|| json!({}));
    if let Some(l) = labels.as_object_mut() {
        l.insert(
            "app.kubernetes.io/managed-by".into(),
            Value::from("package-manager"),
        );
    }
    let annotations = meta.entry("annotations").or_insert_with(|| json!({}));
    if let Some(a) = annotations.as_object_mut() {
        for (k, v) in ann {
            a.insert(k, Value::String(v));
        }
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::tarfs::{
        Limits,
        tests::{E, layer},
    };
    use super::*;

    fn fs(entries: &[E<'_>]) -> Filesystem {
        let mut f = Filesystem::new();
        f.apply_layer(&layer(entries, true), "#0", &Limits::default())
            .unwrap();
        f
    }

    const CRD: &[u8] = b"apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: mysqls.db.example.org\n  labels: {own: label}\n  annotations: {own: annotation}\nspec:\n  group: db.example.org\n  version: v1alpha1\n  names: {kind: MySQL, plural: mysqls}\n";
    const CRD2: &[u8] = b"apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: buckets.s.example.org}\nspec:\n  group: s.example.org\n  names: {kind: Bucket, plural: buckets}\n  versions: [{name: v1}, {name: v2}]\n";

    #[test]
    fn translates_the_record_and_annotates_crds() {
        let f = fs(&[
            E::F(".registry/app.yaml", b"version: v0.1.0\ntitle: My Stack\noverviewShort: short\noverview: long\nreadme: '# hi'\nmaintainers: [{name: A, email: a@example.org}]\nowners: [{name: O}]\ncompany: Co\ncategory: Database\nkeywords: [db]\nwebsite: https://example.org\nsource: https://example.org/src\nlicense: Apache-2.0\npermissionScope: Cluster\ndependsOn: [{crd: '*.core.example.org/v1alpha1'}]\n"),
            E::F(".registry/install.yaml", b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ctrl}\nspec:\n  template:\n    spec:\n      containers: [{name: c}]\n"),
            E::F(".registry/icon.png", b"PNG"),
            E::F(".registry/icon.svg", b"<svg/>"),
            E::F(".registry/ui-schema.yaml", b"root: ui\n"),
            E::F(".registry/resources/db/group.yaml", b"title: Databases\noverview: ov\noverviewShort: ovs\nreadme: rd\n"),
            E::F(".registry/resources/db/mysql/mysql.resource.yaml", b"id: MySQL\ntitle: MySQL\ntitlePlural: MySQLs\ncategory: SQL\noverview: rov\noverviewShort: rovs\nreadme: rrd\n"),
            E::F(".registry/resources/db/mysql/other.resource.yaml", b"id: Other\ntitle: nope\n"),
            E::F(".registry/resources/db/mysql/mysql.v1alpha1.crd.yaml", CRD),
            E::F(".registry/resources/db/mysql/mysql.icon.gif", b"GIF"),
            E::F(".registry/resources/db/mysql/mysql.v1alpha1.ui-schema.yaml", b"---\nkind: ui\n"),
            E::F(".registry/resources/db/mysql/other.ui-schema.yaml", b"not: mine\n"),
            E::F(".registry/resources/s/crd.yaml", CRD2),
        ]);
        let l = translate(
            &f,
            Some("v0.1.0"),
            Some("registry.example.org/org/my-stack:v0.1.0"),
        )
        .unwrap();
        let spec = &l.record["spec"];
        assert_eq!(l.record["metadata"], json!({"name": "my-stack"}));
        assert_eq!(spec["version"], "v0.1.0");
        assert_eq!(
            spec["icons"],
            json!([{"base64Data": "PHN2Zy8+", "mediatype": "image/svg+xml"}])
        );
        assert_eq!(spec["permissionScope"], "Cluster");
        assert_eq!(
            spec["dependsOn"],
            json!([{"crd": "*.core.example.org/v1alpha1"}])
        );
        assert_eq!(
            spec["customresourcedefinitions"],
            json!([{"apiVersion": "db.example.org/v1alpha1", "kind": "MySQL"}, {"apiVersion": "s.example.org/v1", "kind": "Bucket"}, {"apiVersion": "s.example.org/v2", "kind": "Bucket"}])
        );
        assert_eq!(spec["controller"]["deployment"]["name"], "ctrl");
        assert_eq!(
            spec["controller"]["deployment"]["spec"]["template"]["spec"]["containers"][0]["image"],
            "registry.example.org/org/my-stack:v0.1.0"
        );
        let mysql = &l.crds[0]["metadata"];
        assert_eq!(
            mysql["labels"],
            json!({"own": "label", "app.kubernetes.io/managed-by": "package-manager"})
        );
        assert_eq!(
            mysql["annotations"],
            json!({
                "own": "annotation",
                "packages.crossplane.io/package-title": "My Stack",
                "packages.crossplane.io/group-title": "Databases",
                "packages.crossplane.io/group-overview": "ov",
                "packages.crossplane.io/group-overview-short": "ovs",
                "packages.crossplane.io/group-readme": "rd",
                "packages.crossplane.io/resource-category": "SQL",
                "packages.crossplane.io/resource-title": "MySQL",
                "packages.crossplane.io/resource-title-plural": "MySQLs",
                "packages.crossplane.io/resource-overview": "rov",
                "packages.crossplane.io/resource-overview-short": "rovs",
                "packages.crossplane.io/resource-readme": "rrd",
                "packages.crossplane.io/ui-schema": "root: ui\n---\nkind: ui\n",
                "packages.crossplane.io/icon-data-uri": "data:image/gif;base64,R0lG",
            })
        );
        let bucket = &l.crds[1]["metadata"]["annotations"];
        assert_eq!(
            bucket["packages.crossplane.io/icon-data-uri"],
            "data:image/svg+xml;base64,PHN2Zy8+"
        );
        assert!(bucket.get("packages.crossplane.io/group-title").is_none());
    }

    #[test]
    fn legacy_errors() {
        let crd = E::F(".registry/resources/crd.yaml", CRD);
        let cases: Vec<(Vec<E<'_>>, Option<&str>, &str)> = vec![
            (vec![crd], None, ".registry/app.yaml is required"),
            (
                vec![
                    E::F(".registry/app.yaml", b"version: v1\n"),
                    E::F(".registry/resources/crd.yaml", CRD),
                ],
                Some("v2"),
                "app.yaml version \"v1\" does not match the image tag \"v2\"",
            ),
            (
                vec![E::F(".registry/app.yaml", b"title: t\n")],
                None,
                "no CRDs",
            ),
            (
                vec![
                    E::F(".registry/app.yaml", b"title: t\n"),
                    E::F(".registry/resources/crd.yaml", b"kind: Deployment\n"),
                ],
                None,
                "document 1 is not a CustomResourceDefinition",
            ),
            (
                vec![
                    E::F(".registry/app.yaml", b"title: [\n"),
                    E::F(".registry/resources/crd.yaml", CRD),
                ],
                None,
                ".registry/app.yaml is not a valid YAML stream: line",
            ),
            (
                vec![
                    E::F(".registry/app.yaml", b"t: 1\n"),
                    E::F(".registry/install.yaml", b"kind: Service\n"),
                    E::F(".registry/resources/crd.yaml", CRD),
                ],
                None,
                "install.yaml must hold a Deployment",
            ),
        ];
        for (entries, tag, want) in cases {
            let e = format!("{:#}", translate(&fs(&entries), tag, None).unwrap_err());
            assert!(e.contains(want), "{e}\n should contain {want}");
        }
        // Without a version in app.yaml the tag fills it.
        let l = translate(
            &fs(&[
                E::F(".registry/app.yaml", b"title: t\n"),
                E::F(".registry/resources/crd.yaml", CRD),
            ]),
            Some("v3"),
            None,
        )
        .unwrap();
        assert_eq!(l.record["spec"]["version"], "v3");
    }
}
