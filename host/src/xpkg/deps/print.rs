//! A resolved graph for people (a tree) and for machines (JSON).

use serde_json::{Value, json};

use super::model::{Graph, Need, Resolved, is_digest, label};

impl Need {
    fn to_json(&self) -> Value {
        match self {
            Need::Package {
                package,
                kind,
                version,
            } => {
                let mut v = json!({"package": package, "constraint": version});
                if let Some(k) = kind {
                    v["kind"] = json!(k);
                }
                v
            }
            Need::Crd(crd) => json!({"crd": crd}),
        }
    }
}

impl Graph {
    /// The machine form: `{root, packages: [{package, version, digest, kind, dependsOn}], order}`.
    pub(crate) fn to_json(&self) -> Value {
        let packages: Vec<Value> = self
            .packages
            .iter()
            .map(|p| {
                let deps: Vec<Value> = p
                    .depends_on
                    .iter()
                    .map(|(need, dep)| {
                        let mut v = need.to_json();
                        v["package"] = json!(dep);
                        if let Some(d) = self.get(dep) {
                            v["version"] = json!(d.version);
                        }
                        v
                    })
                    .collect();
                json!({
                    "package": p.package,
                    "version": p.version,
                    "digest": p.fetched.digest,
                    "kind": p.fetched.kind,
                    "name": p.fetched.name,
                    "dependsOn": deps,
                })
            })
            .collect();
        let order: Vec<&str> = self.packages.iter().map(|p| p.package.as_str()).collect();
        json!({"root": self.root, "packages": packages, "order": order})
    }

    /// The tree form: the root, then each dependency indented under what needs it.
    pub(crate) fn to_tree(&self) -> String {
        fn line(g: &Graph, p: &Resolved, why: Option<&Need>) -> String {
            let mut s = format!("{} ({})", label(&p.package, &p.version), p.fetched.kind);
            match why {
                Some(Need::Package { version, .. }) if !is_digest(version) => {
                    s.push_str(&format!(" for {version}"));
                }
                Some(Need::Crd(crd)) => s.push_str(&format!(" for CRD {crd}")),
                _ => {}
            }
            if !is_digest(&p.version) && !p.fetched.digest.is_empty() {
                s.push_str(&format!(" {}", p.fetched.digest));
            }
            let _ = g;
            s
        }
        fn walk(g: &Graph, p: &Resolved, prefix: &str, out: &mut String) {
            let n = p.depends_on.len();
            for (i, (need, dep)) in p.depends_on.iter().enumerate() {
                let last = i + 1 == n;
                let Some(d) = g.get(dep) else { continue };
                out.push_str(&format!(
                    "{prefix}{}{}\n",
                    if last { "└── " } else { "├── " },
                    line(g, d, Some(need))
                ));
                let next = format!("{prefix}{}", if last { "    " } else { "│   " });
                walk(g, d, &next, out);
            }
        }
        let mut out = String::new();
        if let Some(root) = self.get(&self.root) {
            out.push_str(&line(self, root, None));
            out.push('\n');
            walk(self, root, "", &mut out);
        }
        out
    }
}
