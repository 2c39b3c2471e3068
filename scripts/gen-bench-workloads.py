#!/usr/bin/env python3
"""Writes the render benchmark workloads (benches/workloads/*.json).

small:  1 resource x 1 patch.
medium: 20 resources x 8 patches mixing PatchSet, map, math, string Format/Convert, combine,
        quantity convert, regexp match and ToCompositeFieldPath; MatchCondition readiness;
        FromFieldPath connection details; 10 observed resources.
large:  200 resources x 10 patches, 100 observed.
medium-step: medium as the one function-patch-and-transform step `xprender function serve`
        hands the engine (function semantics and output), as that server writes it.
series-N (N = 2,500, 5,000, 10,000, 20,000): N resources x 1 patch, N observed, to show how
        the render scales; megabytes each, so written only with --series (scripts/bench.sh does)
        and not committed.
"""
import json
import pathlib
import sys

OUT = pathlib.Path(__file__).resolve().parent.parent / "benches" / "workloads"


def xr(n):
    return {
        "apiVersion": "platform.example.org/v1alpha1",
        "kind": "XDatabase",
        "metadata": {"name": "bench-db", "uid": "0b1c2d3e-0000-4000-8000-000000000001",
                     "labels": {"crossplane.io/composite": "bench-db", "team": "payments"}},
        "spec": {
            "parameters": {"region": "eu-west-1", "size": "medium", "storage": "20Gi",
                           "storageGB": 20, "engine": "postgres", "version": "15.4",
                           "environment": "production", "owner": "team-payments"},
            "compositionRef": {"name": "bench"},
        },
    }


def patches(i, count):
    base = [
        {"type": "PatchSet", "patchSetName": "common"},
        {"fromFieldPath": "spec.parameters.size", "toFieldPath": "spec.forProvider.instanceClass",
         "transforms": [{"type": "map", "map": {"small": "db.t3.small", "medium": "db.m5.large",
                                                 "large": "db.r5.2xlarge"}}]},
        {"fromFieldPath": "spec.parameters.storageGB", "toFieldPath": "spec.forProvider.storageMB",
         "transforms": [{"type": "math", "math": {"type": "Multiply", "multiply": 1024}}]},
        {"fromFieldPath": "spec.parameters.engine", "toFieldPath": "spec.forProvider.engineName",
         "transforms": [{"type": "string", "string": {"type": "Convert", "convert": "ToUpper"}},
                        {"type": "string", "string": {"type": "Format", "fmt": "engine-%s-" + str(i)}}]},
        {"type": "CombineFromComposite", "toFieldPath": "metadata.annotations[example.org/id]",
         "combine": {"variables": [{"fromFieldPath": "metadata.name"},
                                   {"fromFieldPath": "spec.parameters.region"}],
                     "strategy": "string", "string": {"fmt": "%s-%s-" + str(i)}}},
        {"fromFieldPath": "spec.parameters.storage", "toFieldPath": "spec.forProvider.allocatedBytes",
         "transforms": [{"type": "convert", "convert": {"toType": "float64", "format": "quantity"}}]},
        {"fromFieldPath": "spec.parameters.region", "toFieldPath": "spec.forProvider.tier",
         "transforms": [{"type": "match", "match": {"patterns": [
             {"type": "regexp", "regexp": "^us-", "result": "americas"},
             {"type": "regexp", "regexp": "^eu-(west|central)-[0-9]+$", "result": "europe"}],
             "fallbackValue": "other"}}]},
        {"type": "ToCompositeFieldPath", "fromFieldPath": "status.atProvider.id",
         "toFieldPath": f"status.resources.r{i}"},
        {"fromFieldPath": "spec.parameters.version", "toFieldPath": "spec.forProvider.majorVersion",
         "transforms": [{"type": "string", "string": {"type": "Regexp",
                                                      "regexp": {"match": "^([0-9]+)\\.", "group": 1}}}]},
        {"fromFieldPath": "spec.parameters.owner", "toFieldPath": "spec.forProvider.tags.owner",
         "transforms": [{"type": "string", "string": {"type": "TrimPrefix", "trim": "team-"}}]},
    ]
    return base[:count]


def resource(i, count):
    return {
        "name": f"r{i}",
        "base": {"apiVersion": "rds.aws.example.org/v1beta1", "kind": "Instance",
                 "spec": {"forProvider": {"region": "us-east-1", "tags": {"managed-by": "crossplane"}},
                          "writeConnectionSecretToRef": {"namespace": "crossplane-system"}}},
        "patches": patches(i, count),
        "readinessChecks": [{"type": "MatchCondition", "matchCondition": {"type": "Ready", "status": "True"}}],
        "connectionDetails": [{"name": f"endpoint-{i}", "type": "FromFieldPath",
                               "fromFieldPath": "status.atProvider.endpoint"}],
    }


def observed(i):
    return {"resource": {
        "apiVersion": "rds.aws.example.org/v1beta1", "kind": "Instance",
        "metadata": {"name": f"bench-db-{i:05d}",
                     "annotations": {"crossplane.io/composition-resource-name": f"r{i}"}},
        "spec": {"forProvider": {"region": "eu-west-1"}},
        "status": {"atProvider": {"id": f"db-{i}", "endpoint": f"r{i}.db.example.org"},
                   "conditions": [{"type": "Ready", "status": "True", "reason": "Available",
                                   "lastTransitionTime": "2024-01-01T00:00:00Z"}]}},
        "connectionDetails": {"password": "c2VjcmV0"}}


SERIES = (2500, 5000, 10000, 20000)


def series(n):
    """n resources, one patch each, all observed."""
    req = request(n, 1, n)
    del req["composition"]["spec"]["patchSets"]
    for i, r in enumerate(req["composition"]["spec"]["resources"]):
        r["patches"] = [{"fromFieldPath": "spec.parameters.region",
                         "toFieldPath": "spec.forProvider.region"}]
    return req


def request(resources, patch_count, observed_count, small=False):
    comp = {
        "apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
        "metadata": {"name": "bench"},
        "spec": {
            "compositeTypeRef": {"apiVersion": "platform.example.org/v1alpha1", "kind": "XDatabase"},
            "patchSets": [{"name": "common", "patches": [
                {"fromFieldPath": "metadata.labels[team]", "toFieldPath": "metadata.labels[team]"},
                {"fromFieldPath": "spec.parameters.region", "toFieldPath": "spec.forProvider.region"}]}],
            "resources": [resource(i, patch_count) for i in range(resources)],
        },
    }
    if small:
        comp["spec"]["resources"][0]["patches"] = [
            {"fromFieldPath": "spec.parameters.region", "toFieldPath": "spec.forProvider.region"}]
        del comp["spec"]["patchSets"]
    return {"xr": xr(resources), "composition": comp,
            "observed": {"resources": {f"r{i}": observed(i) for i in range(observed_count)}}}


def step(req):
    """The request the function server writes for `req`'s Composition as one step."""
    spec = req["composition"]["spec"]
    inp = {"apiVersion": "pt.fn.crossplane.io/v1beta1", "kind": "Resources",
           "patchSets": spec.get("patchSets", []), "resources": spec["resources"]}
    observed = {name: {"resource": o["resource"], "connectionDetails": {}}
                for name, o in req["observed"]["resources"].items()}
    return {
        "xr": req["xr"],
        "composition": {
            "apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
            "metadata": {"name": "function"},
            "spec": {"mode": "Pipeline", "pipeline": [
                {"step": "function", "functionRef": {"name": "xprender"}, "input": inp}]}},
        "observed": {"resources": observed},
        "desired": {"resources": {}, "composite": {}, "connectionDetails": {}},
        "options": {"semantics": "function", "output": "function"},
    }


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, req in [("small", request(1, 1, 0, small=True)),
                      ("medium", request(20, 8, 10)),
                      ("medium-step", step(request(20, 8, 10))),
                      ("large", request(200, 10, 100))]:
        (OUT / f"{name}.json").write_text(json.dumps(req, separators=(",", ":")) + "\n")
    if "--series" in sys.argv[1:]:
        for n in SERIES:
            (OUT / f"series-{n}.json").write_text(json.dumps(series(n), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
