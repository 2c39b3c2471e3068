#!/usr/bin/env python3
"""Writes the render benchmark workloads (benches/workloads/*.json).

small:  1 resource x 1 patch.
medium: 20 resources x 8 patches mixing PatchSet, map, math, string Format/Convert, combine,
        quantity convert, regexp match and ToCompositeFieldPath; MatchCondition readiness;
        FromFieldPath connection details; 10 observed resources.
large:  200 resources x 10 patches, 100 observed.
medium-step: medium as the one function-patch-and-transform step `xprender function serve`
        hands the engine (function semantics and output), as that server writes it.
tree:   a documents request of a 3-level tree of XRs, each level with its own Composition: an
        XPlatform composes 4 XTeams, each 5 XServices, each 5 managed resources (100 in all, the
        medium ones with 8 patches); the nested XRs patch parameters, labels and names down and
        statuses up; every XR and managed resource is observed, as a live tree is read.
tree-until-ready: tree with options.untilReady (renders through simulated providers until the
        tree settles: 2 renders, the second changing nothing).
tree-new-until-ready: tree with nothing observed, options.untilReady and a Simulation document
        giving the managed resources their status: the tree created, then rendered until the
        managed resources' ids have reached the top XR.
tree-flat: the same 100 managed resources in one level: one XR whose Composition has the 100
        templates, all observed, as a documents request.
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


GROUP = "platform.example.org"
API = f"{GROUP}/v1alpha1"
NOW = "2024-01-01T00:00:00Z"
TEAMS, SERVICES, MANAGED = 4, 5, 5  # 4 x 5 x 5 = 100 managed resources


def ready_status(extra=None):
    status = {"conditions": [{"type": "Ready", "status": "True", "reason": "Available",
                              "lastTransitionTime": NOW},
                             {"type": "Synced", "status": "True", "reason": "ReconcileSuccess",
                              "lastTransitionTime": NOW}]}
    status.update(extra or {})
    return status


def owned(api, kind, name, template, owner, spec, status):
    """An observed composed object as the API server holds it: named, owned, annotated."""
    meta = {"name": name, "uid": f"uid-{name}",
            "labels": {"crossplane.io/composite": owner["metadata"]["labels"]["crossplane.io/composite"]},
            "annotations": {"crossplane.io/composition-resource-name": template},
            "ownerReferences": [{"apiVersion": owner["apiVersion"], "kind": owner["kind"],
                                 "name": owner["metadata"]["name"], "uid": owner["metadata"]["uid"],
                                 "controller": True, "blockOwnerDeletion": True}]}
    return {"apiVersion": api, "kind": kind, "metadata": meta, "spec": spec, "status": status}


def xrd(kind, plural):
    return {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "CompositeResourceDefinition",
            "metadata": {"name": f"{plural}.{GROUP}"},
            "spec": {"group": GROUP, "names": {"kind": kind, "plural": plural},
                     "versions": [{"name": "v1alpha1", "served": True, "referenceable": True,
                                   "schema": {"openAPIV3Schema": {"type": "object"}}}]}}


def composition(name, kind, resources, patch_sets=()):
    spec = {"compositeTypeRef": {"apiVersion": API, "kind": kind}, "resources": resources}
    if patch_sets:
        spec["patchSets"] = list(patch_sets)
    return {"apiVersion": "apiextensions.crossplane.io/v1", "kind": "Composition",
            "metadata": {"name": name}, "spec": spec}


COMMON = {"name": "common", "patches": [
    {"fromFieldPath": "metadata.labels[team]", "toFieldPath": "metadata.labels[team]"},
    {"fromFieldPath": "spec.parameters.region", "toFieldPath": "spec.forProvider.region"}]}


def nested(name, kind, patches):
    """A template of a nested XR: its parameters, labels and name patched down, status up."""
    return {"name": name, "base": {"apiVersion": API, "kind": kind, "spec": {"parameters": {}}},
            "patches": patches}


def tree_compositions():
    platform = composition("platform", "XPlatform", [nested(f"team-{t}", "XTeam", [
        {"fromFieldPath": "spec.parameters", "toFieldPath": "spec.parameters"},
        {"fromFieldPath": "metadata.labels[team]", "toFieldPath": "metadata.labels[team]",
         "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "%s-" + str(t)}}]},
        {"type": "CombineFromComposite", "toFieldPath": "spec.teamName",
         "combine": {"variables": [{"fromFieldPath": "metadata.name"},
                                   {"fromFieldPath": "spec.parameters.region"}],
                     "strategy": "string", "string": {"fmt": "%s-%s-team-" + str(t)}}},
        {"type": "ToCompositeFieldPath", "fromFieldPath": "status.services",
         "toFieldPath": f"status.teams.team-{t}"},
    ]) for t in range(TEAMS)])
    team = composition("team", "XTeam", [nested(f"svc-{s}", "XService", [
        {"fromFieldPath": "spec.parameters", "toFieldPath": "spec.parameters"},
        {"fromFieldPath": "metadata.labels[team]", "toFieldPath": "metadata.labels[team]"},
        {"fromFieldPath": "spec.teamName", "toFieldPath": "spec.parameters.owner",
         "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "team-%s-" + str(s)}}]},
        {"fromFieldPath": "spec.parameters.storageGB", "toFieldPath": "spec.parameters.storage",
         "transforms": [{"type": "string", "string": {"type": "Format", "fmt": "%dGi"}}]},
        {"type": "ToCompositeFieldPath", "fromFieldPath": "status.resources",
         "toFieldPath": f"status.services.svc-{s}"},
    ]) for s in range(SERVICES)])
    service = composition("service", "XService", [resource(k, 8) for k in range(MANAGED)], [COMMON])
    return platform, team, service


def managed(k, name, owner):
    o = observed(k)["resource"]
    return owned(o["apiVersion"], o["kind"], name, f"r{k}", owner, o["spec"], o["status"])


def refs(docs):
    return [{"apiVersion": d["apiVersion"], "kind": d["kind"], "name": d["metadata"]["name"]}
            for d in docs]


# What the simulated providers write on a managed resource (tree-new-until-ready).
SIMULATION = {"apiVersion": "xprender.dev/v1alpha1", "kind": "Simulation",
              "metadata": {"name": "rds"},
              "spec": {"resources": [{"apiVersion": "rds.aws.example.org/v1beta1", "kind": "Instance",
                                      "status": {"atProvider": {"endpoint": "db.example.org"}},
                                      "copy": [{"fromFieldPath": "spec.forProvider.engineName",
                                                "toFieldPath": "status.atProvider.id"}]}]}}


def tree(until_ready=False, observed_tree=True):
    """The 3-level tree as the documents a live XPlatform and what it composes are read as."""
    top = xr(0)
    top["apiVersion"], top["kind"] = API, "XPlatform"
    del top["spec"]["compositionRef"]
    docs = [top, *tree_compositions(), xrd("XPlatform", "xplatforms"), xrd("XTeam", "xteams"),
            xrd("XService", "xservices")]
    options = {"now": NOW}
    if until_ready:
        options["untilReady"] = True
    if not observed_tree:
        return {"documents": [*docs, SIMULATION], "options": options}
    teams = []
    for t in range(TEAMS):
        team = owned(API, "XTeam", f"bench-db-t{t}", f"team-{t}", top,
                     {"parameters": top["spec"]["parameters"], "teamName": f"bench-db-eu-west-1-team-{t}"},
                     ready_status())
        services = []
        for s in range(SERVICES):
            svc = owned(API, "XService", f"{team['metadata']['name']}-s{s}", f"svc-{s}", team,
                        {"parameters": dict(top["spec"]["parameters"],
                                        owner=f"team-{team['spec']['teamName']}-{s}")},
                        ready_status({"resources": {f"r{k}": f"db-{k}" for k in range(MANAGED)}}))
            leaves = [managed(k, f"{svc['metadata']['name']}-r{k}", svc) for k in range(MANAGED)]
            svc["spec"]["resourceRefs"] = refs(leaves)
            services.append(svc)
            docs.extend(leaves)
        team["spec"]["resourceRefs"] = refs(services)
        team["status"]["services"] = {f"svc-{s}": services[s]["status"]["resources"]
                                      for s in range(SERVICES)}
        docs.extend(services)
        teams.append(team)
    top["spec"]["resourceRefs"] = refs(teams)
    docs.extend(teams)
    return {"documents": docs, "options": options}


def tree_flat():
    """The tree's 100 managed resources composed by one XR, as one level."""
    top = xr(0)
    top["apiVersion"], top["kind"] = API, "XService"
    del top["spec"]["compositionRef"]
    n = TEAMS * SERVICES * MANAGED
    comp = composition("service", "XService", [resource(k, 8) for k in range(n)], [COMMON])
    leaves = [managed(k, f"bench-db-r{k}", top) for k in range(n)]
    top["spec"]["resourceRefs"] = refs(leaves)
    return {"documents": [top, comp, xrd("XService", "xservices"), *leaves],
            "options": {"now": NOW}}


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
                      ("large", request(200, 10, 100)),
                      ("tree", tree()),
                      ("tree-until-ready", tree(until_ready=True)),
                      ("tree-new-until-ready", tree(until_ready=True, observed_tree=False)),
                      ("tree-flat", tree_flat())]:
        (OUT / f"{name}.json").write_text(json.dumps(req, separators=(",", ":")) + "\n")
    if "--series" in sys.argv[1:]:
        for n in SERIES:
            (OUT / f"series-{n}.json").write_text(json.dumps(series(n), separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
