//! The bundled example covers what its README promises: every patch type, the readiness
//! checks and every connection detail type.

mod common;

use common::example;

#[test]
fn example_composition_exercises_every_feature() {
    let text = std::fs::read_to_string(example("composition.yaml")).unwrap();
    let resources = text.matches("\n    - name: ").count();
    assert!(resources >= 5, "only {resources} resources");
    for kind in [
        "FromCompositeFieldPath",
        "ToCompositeFieldPath",
        "CombineFromComposite",
        "CombineToComposite",
        "PatchSet",
        "FromEnvironmentFieldPath",
        "ToEnvironmentFieldPath",
        "CombineFromEnvironment",
        "CombineToEnvironment",
        "FromConnectionSecretKey",
        "FromFieldPath",
        "FromValue",
        "MatchCondition",
        "MatchString",
        "MatchInteger",
        "NonEmpty",
        "None",
    ] {
        assert!(
            text.contains(&format!("type: {kind}\n")),
            "composition.yaml has no `type: {kind}`"
        );
    }
    for file in [
        "xr.yaml",
        "xrd.yaml",
        "observed.yaml",
        "environment.yaml",
        "README.md",
    ] {
        assert!(example(file).is_file(), "{file}");
    }
    let observed = std::fs::read_to_string(example("observed.yaml")).unwrap();
    assert!(
        observed.contains("kind: Secret\n"),
        "observed.yaml has no connection Secret"
    );
}
