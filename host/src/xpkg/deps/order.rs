//! The install order of a resolved graph: dependencies first.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{Result, bail};

use super::model::{Resolved, label};

/// Dependencies first (depth first, in declaration order); a cycle is an error naming it.
pub(super) fn install_order(root: &str, nodes: &BTreeMap<String, Resolved>) -> Result<Vec<String>> {
    fn visit(
        p: &str,
        nodes: &BTreeMap<String, Resolved>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        out: &mut Vec<String>,
    ) -> Result<()> {
        if done.contains(p) {
            return Ok(());
        }
        let name = |p: &str| {
            nodes
                .get(p)
                .map_or_else(|| p.to_owned(), |n| label(&n.package, &n.version))
        };
        if let Some(i) = stack.iter().position(|s| s == p) {
            let mut cycle: Vec<String> = stack[i..].iter().map(|s| name(s)).collect();
            cycle.push(name(p));
            bail!("dependency cycle: {}", cycle.join(" -> "));
        }
        stack.push(p.to_owned());
        if let Some(n) = nodes.get(p) {
            for (_, dep) in &n.depends_on {
                visit(dep, nodes, stack, done, out)?;
            }
        }
        stack.pop();
        done.insert(p.to_owned());
        out.push(p.to_owned());
        Ok(())
    }
    let mut out = Vec::new();
    visit(root, nodes, &mut Vec::new(), &mut BTreeSet::new(), &mut out)?;
    Ok(out)
}
