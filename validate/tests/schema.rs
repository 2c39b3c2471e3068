//! Table-driven schema tests: each case validates a value against a schema (at the field
//! path `x`) and lists the problems expected, and optionally the object after pruning and
//! defaulting.

use serde_json::{Value, json};
use xprender_validate::{Options, Path, schema_problems, validate_with_schema};

fn run_cases(text: &str) {
    let cases: Vec<Value> = serde_json::from_str(text).unwrap();
    let mut failures = Vec::new();
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        // Wrap the schema as property `x` of a root object, so paths read `x...`.
        let schema = json!({"type": "object", "properties": {"x": case["schema"]}});
        assert!(
            schema_problems(&schema).is_empty(),
            "{name}: schema rejected"
        );
        let mut value = json!({"x": case["value"]});
        let opts = Options {
            strict: case["strict"] == json!(true),
        };
        let got: Vec<String> = validate_with_schema(&mut value, &schema, opts)
            .iter()
            .map(ToString::to_string)
            .collect();
        let want: Vec<String> = serde_json::from_value(case["problems"].clone()).unwrap();
        if got != want {
            failures.push(format!("{name}:\n  got  {got:?}\n  want {want:?}"));
        }
        if let Some(object) = case.get("object")
            && &value["x"] != object
        {
            failures.push(format!("{name}: object {} want {object}", value["x"]));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn keywords() {
    run_cases(include_str!("cases/keywords.json"));
}

#[test]
fn cel_rules() {
    run_cases(include_str!("cases/cel.json"));
}

fn nested(depth: usize) -> Value {
    let mut s = json!({"type": "string"});
    for _ in 0..depth {
        // Built by moves: `json!` would serialize the inner value recursively.
        let mut props = serde_json::Map::new();
        props.insert("a".into(), s);
        let mut o = serde_json::Map::new();
        o.insert("type".into(), json!("object"));
        o.insert("properties".into(), Value::Object(props));
        s = Value::Object(o);
    }
    s
}

#[test]
fn a_ten_thousand_level_schema_is_refused() {
    let schema = nested(10_000);
    let problems = schema_problems(&schema);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].message, "schema nested deeper than 128 levels");
    assert!(
        problems[0]
            .path
            .to_string()
            .starts_with("properties.a.properties.a.")
    );
    // Dropping a value this deep recurses; forget it (the test process ends next).
    std::mem::forget(schema);
}

#[test]
fn an_invalid_pattern_is_a_schema_problem() {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string", "pattern": "^(unclosed"}}});
    let got: Vec<String> = schema_problems(&schema)
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(got.len(), 1);
    assert!(
        got[0].starts_with("properties.name.pattern: invalid regular expression '^(unclosed': "),
        "{got:?}"
    );
}

#[test]
fn hostile_cel_rules_are_refused() {
    let rule = |r: String| json!({"type": "object", "x-kubernetes-validations": [{"rule": r}]});
    let huge = format!("self.a == 1{}", " && self.a == 1".repeat(2000));
    let deep = format!("{}true{}", "(".repeat(500), ")".repeat(500));
    let bad = "self.a ==".to_owned();
    let got: Vec<String> = [huge, deep, bad]
        .into_iter()
        .flat_map(|r| schema_problems(&rule(r)))
        .map(|p| p.to_string())
        .collect();
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(
        got[0],
        "x-kubernetes-validations[0].rule: rule is 30011 bytes long, over the limit of 16384"
    );
    assert_eq!(
        got[1],
        "x-kubernetes-validations[0].rule: rule nests 500 levels deep, over the limit of 32"
    );
    assert!(
        got[2].starts_with("x-kubernetes-validations[0].rule: compilation failed: "),
        "{got:?}"
    );
}

#[test]
fn a_costly_rule_is_stopped_by_the_budget() {
    // Three nested comprehensions over 200 elements: 8 million steps.
    let schema = json!({"type": "object", "properties": {"x": {
        "type": "array", "items": {"type": "integer"},
        "x-kubernetes-validations": [{"rule": "self.all(a, self.all(b, self.all(c, a + b + c >= 0)))"}]
    }}});
    let mut value = json!({"x": (0..200).collect::<Vec<i64>>()});
    let got: Vec<String> = validate_with_schema(&mut value, &schema, Options::default())
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(got.len(), 1);
    assert!(got[0].starts_with("x: Invalid value: \"array\": rule \"self.all(a, self.all(b, self.all(c, a + b + c >= 0)))\": estimated rule cost exceeds budget ("), "{got:?}");
    // The same rule over a small list runs.
    let mut small = json!({"x": [1, 2, 3]});
    assert!(validate_with_schema(&mut small, &schema, Options::default()).is_empty());
    let _ = Path::root();
}

#[test]
fn long_chains_in_a_rule_do_not_exhaust_the_stack() {
    let rule = |r: String| json!({"type": "object", "x-kubernetes-validations": [{"rule": r}]});
    let selects = format!("self{} == 1", ".a".repeat(7000));
    let sums = format!("1{} > 0", " + 1".repeat(3000));
    for r in [selects, sums] {
        let got: Vec<String> = schema_problems(&rule(r))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(
            got[0].contains("operators, over the limit of 256"),
            "{got:?}"
        );
    }
    // Within the limit, a chain compiles and runs.
    let ok = format!("self{} == 1", ".a".repeat(200));
    assert!(schema_problems(&rule(ok)).is_empty());
}
