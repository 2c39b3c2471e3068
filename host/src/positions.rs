//! Where each value of a YAML (or JSON) document sits in its file, so a problem at a field
//! path can be reported as `FILE:LINE:COLUMN`.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;
use xprender_validate::{Path, Seg};

/// A document's shape with the position of every node and every mapping key.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    line: u64,
    column: u64,
    node: Node,
}

#[derive(Debug, Default)]
enum Node {
    #[default]
    Leaf,
    Seq(Vec<Tree>),
    /// Each key, the position of the key, and its value.
    Map(Vec<(String, (u64, u64), Tree)>),
}

/// The position trees of a stream's documents, in stream order (empty documents included,
/// as the documents read by `io` count them). `None` when the text cannot be read that way.
pub(crate) fn of_stream(text: &str) -> Option<Vec<Tree>> {
    let mut options = crate::io::yaml_options(text);
    options.duplicate_keys = serde_saphyr::options::DuplicateKeyPolicy::LastWins;
    let docs: Vec<Spanned<Shape>> = serde_saphyr::from_multiple_with_options(text, options).ok()?;
    Some(docs.into_iter().map(tree).collect())
}

fn tree(s: Spanned<Shape>) -> Tree {
    let node = match s.value {
        Shape::Leaf => Node::Leaf,
        Shape::Seq(items) => Node::Seq(items.into_iter().map(tree).collect()),
        Shape::Map(entries) => Node::Map(
            entries
                .into_iter()
                .map(|(k, v)| {
                    let at = (k.referenced.line(), k.referenced.column());
                    (k.value.0, at, tree(v))
                })
                .collect(),
        ),
    };
    Tree {
        line: s.referenced.line(),
        column: s.referenced.column(),
        node,
    }
}

impl Tree {
    /// The position of `path`: the key of its last member, or the deepest node of the
    /// path that exists (where a missing field would go).
    pub(crate) fn locate(&self, path: &Path) -> (u64, u64) {
        let mut here = self;
        let mut pos = (self.line, self.column);
        for seg in &path.0 {
            let next = match (&here.node, seg) {
                (Node::Map(entries), Seg::Field(k) | Seg::Key(k)) => entries
                    .iter()
                    .rev()
                    .find(|(name, _, _)| name == k)
                    .map(|(_, at, t)| (*at, t)),
                (Node::Seq(items), Seg::Index(i)) => items.get(*i).map(|t| ((t.line, t.column), t)),
                _ => None,
            };
            match next {
                Some((at, t)) => {
                    pos = at;
                    here = t;
                }
                None => break,
            }
        }
        pos
    }
}

/// A node's shape, deserialized inside `Spanned` to learn positions.
enum Shape {
    Leaf,
    Seq(Vec<Spanned<Shape>>),
    Map(Vec<(Spanned<Key>, Spanned<Shape>)>),
}

/// A mapping key as text, whatever its YAML type.
struct Key(String);

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

macro_rules! leaf {
    ($($name:ident: $t:ty),*) => {
        $(fn $name<E: de::Error>(self, _: $t) -> Result<Shape, E> {
            Ok(Shape::Leaf)
        })*
    };
}

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }

    leaf!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_i128: i128, visit_u128: u128, visit_f64: f64, visit_str: &str, visit_bytes: &[u8]);

    fn visit_unit<E: de::Error>(self) -> Result<Shape, E> {
        Ok(Shape::Leaf)
    }

    fn visit_none<E: de::Error>(self) -> Result<Shape, E> {
        Ok(Shape::Leaf)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Shape, D::Error> {
        Shape::deserialize(d)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Shape::Seq(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut entries = Vec::new();
        while let Some(entry) = map.next_entry()? {
            entries.push(entry);
        }
        Ok(Shape::Map(entries))
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a mapping key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key(v.to_owned()))
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
                Ok(Key("null".into()))
            }
        }
        d.deserialize_any(KeyVisitor)
    }
}
