//! `--output tree`: the objects of a render as `crossplane beta trace` lists them, one line each,
//! indented per level, with their readiness and whether their render reported a problem.

use super::walk::Node;

/// The columns after NAME.
const HEADER: [&str; 3] = ["NAME", "READY", "SYNCED"];

/// kubectl's table layout (`printers.GetNewTabWriter`): columns at least 10 wide, 3 spaces
/// after the widest cell.
const MIN_WIDTH: usize = 10;
const PADDING: usize = 3;

/// The tree as text: a header, then one line per object.
pub(crate) fn render(nodes: &[Node<'_>]) -> String {
    let rows: Vec<[String; 3]> = nodes
        .iter()
        .map(|n| {
            [
                format!("{}{}", prefix(&n.last), n.display_name()),
                title(n.ready).to_owned(),
                title(n.synced).to_owned(),
            ]
        })
        .collect();
    let width = |column: usize| {
        rows.iter()
            .map(|r| r[column].chars().count())
            .chain([HEADER[column].len()])
            .max()
            .map_or(MIN_WIDTH, |w| (w + PADDING).max(MIN_WIDTH))
    };
    let widths = [width(0), width(1)];
    let mut out = String::new();
    for row in std::iter::once(HEADER.map(str::to_owned)).chain(rows) {
        for (cell, width) in row.iter().zip(widths) {
            out.push_str(cell);
            out.extend(std::iter::repeat_n(' ', width - cell.chars().count()));
        }
        out.push_str(&row[2]);
        out.push('\n');
    }
    out
}

/// The box-drawing prefix of an object: a bar for each ancestor that has siblings after it,
/// then the branch to the object itself.
fn prefix(last: &[bool]) -> String {
    let Some((own, above)) = last.split_last() else {
        return String::new();
    };
    let mut out: String = above
        .iter()
        .map(|&l| if l { "   " } else { "│  " })
        .collect();
    out.push_str(if *own { "└─ " } else { "├─ " });
    out
}

fn title(b: bool) -> &'static str {
    if b { "True" } else { "False" }
}
