const __vite__mapDeps=(i,m=__vite__mapDeps,d=(m.f||(m.f=["./main-iLvG7Rk9.js","./share-v6-42CRB.js"])))=>i.map(i=>d[i]);
import{r as V,d as T,S as R}from"./share-v6-42CRB.js";(function(){const e=document.createElement("link").relList;if(e&&e.supports&&e.supports("modulepreload"))return;for(const t of document.querySelectorAll('link[rel="modulepreload"]'))s(t);new MutationObserver(t=>{for(const a of t)if(a.type==="childList")for(const r of a.addedNodes)r.tagName==="LINK"&&r.rel==="modulepreload"&&s(r)}).observe(document,{childList:!0,subtree:!0});function o(t){const a={};return t.integrity&&(a.integrity=t.integrity),t.referrerPolicy&&(a.referrerPolicy=t.referrerPolicy),t.crossOrigin==="use-credentials"?a.credentials="include":t.crossOrigin==="anonymous"?a.credentials="omit":a.credentials="same-origin",a}function s(t){if(t.ep)return;t.ep=!0;const a=o(t);fetch(t.href,a)}})();const I="modulepreload",X=function(n,e){return new URL(n,e).href},b={},N=function(e,o,s){let t=Promise.resolve();if(o&&o.length>0){let _=function(p){return Promise.all(p.map(c=>Promise.resolve(c).then(d=>({status:"fulfilled",value:d}),d=>({status:"rejected",reason:d}))))};const r=document.getElementsByTagName("link"),i=document.querySelector("meta[property=csp-nonce]"),g=i?.nonce||i?.getAttribute("nonce");t=_(o.map(p=>{if(p=X(p,s),p in b)return;b[p]=!0;const c=p.endsWith(".css"),d=c?'[rel="stylesheet"]':"";if(s)for(let l=r.length-1;l>=0;l--){const u=r[l];if(u.href===p&&(!c||u.rel==="stylesheet"))return}else if(document.querySelector(`link[href="${p}"]${d}`))return;const m=document.createElement("link");if(m.rel=c?"stylesheet":I,c||(m.as="script"),m.crossOrigin="",m.href=p,g&&m.setAttribute("nonce",g),document.head.appendChild(m),c)return new Promise((l,u)=>{m.addEventListener("load",l),m.addEventListener("error",()=>u(new Error(`Unable to preload CSS for ${p}`)))})}))}function a(r){const i=new Event("vite:preloadError",{cancelable:!0});if(i.payload=r,window.dispatchEvent(i),!i.defaultPrevented)throw r}return t.then(r=>{for(const i of r||[])i.status==="rejected"&&a(i.reason);return e().catch(a)})},A=`# The platform's Compositions, one per XR type: XPlatform (the top), XNetwork and XPostgreSQL
# (composed by the platform), XSubnetGroup (composed by the network). xprender renders each
# nested XR with its own Composition, as Crossplane's XR controller composes it.
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: platform
spec:
  compositeTypeRef:
    apiVersion: platform.example.org/v1alpha1
    kind: XPlatform
  patchSets:
    - name: region
      patches:
        - type: FromCompositeFieldPath
          fromFieldPath: spec.region
          toFieldPath: spec.region
          transforms:
            - type: map
              map:
                eu: eu-west-1
                us: us-east-1
  resources:
    - name: network
      base:
        apiVersion: platform.example.org/v1alpha1
        kind: XNetwork
      patches:
        - type: PatchSet
          patchSetName: region
        - type: FromCompositeFieldPath
          fromFieldPath: spec.tier
          toFieldPath: spec.cidrBlock
          transforms:
            - type: map
              map:
                development: 10.10.0.0/16
                production: 10.20.0.0/16
        # The network's VPC id, once its provider reports it, for the database below.
        - type: ToCompositeFieldPath
          fromFieldPath: status.vpcId
          toFieldPath: status.vpcId
    - name: database
      base:
        apiVersion: platform.example.org/v1alpha1
        kind: XPostgreSQL
      patches:
        - type: PatchSet
          patchSetName: region
        - type: FromCompositeFieldPath
          fromFieldPath: spec.tier
          toFieldPath: spec.instanceClass
          transforms:
            - type: map
              map:
                development: db.t4g.micro
                production: db.m6g.large
        # Read from the XR's status: known from the reconcile after the network's.
        - type: FromCompositeFieldPath
          fromFieldPath: status.vpcId
          toFieldPath: spec.vpcId
        - type: ToCompositeFieldPath
          fromFieldPath: status.address
          toFieldPath: status.databaseAddress
    - name: dns
      base:
        apiVersion: route53.aws.upbound.io/v1beta1
        kind: Zone
        spec:
          forProvider:
            comment: managed by the platform
      patches:
        - type: FromCompositeFieldPath
          fromFieldPath: metadata.name
          toFieldPath: spec.forProvider.name
          transforms:
            - type: string
              string:
                type: Format
                fmt: "%s.platform.example.org"
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: network
spec:
  compositeTypeRef:
    apiVersion: platform.example.org/v1alpha1
    kind: XNetwork
  resources:
    - name: vpc
      base:
        apiVersion: ec2.aws.upbound.io/v1beta1
        kind: VPC
        spec:
          forProvider:
            enableDnsSupport: true
      patches:
        - type: FromCompositeFieldPath
          fromFieldPath: spec.region
          toFieldPath: spec.forProvider.region
        - type: FromCompositeFieldPath
          fromFieldPath: spec.cidrBlock
          toFieldPath: spec.forProvider.cidrBlock
        - type: ToCompositeFieldPath
          fromFieldPath: status.atProvider.id
          toFieldPath: status.vpcId
    - name: subnets
      base:
        apiVersion: platform.example.org/v1alpha1
        kind: XSubnetGroup
      patches:
        - type: FromCompositeFieldPath
          fromFieldPath: spec.region
          toFieldPath: spec.region
        - type: FromCompositeFieldPath
          fromFieldPath: status.vpcId
          toFieldPath: spec.vpcId
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: subnets
spec:
  compositeTypeRef:
    apiVersion: platform.example.org/v1alpha1
    kind: XSubnetGroup
  patchSets:
    - name: subnet
      patches:
        - type: FromCompositeFieldPath
          fromFieldPath: spec.region
          toFieldPath: spec.forProvider.region
        - type: FromCompositeFieldPath
          fromFieldPath: spec.vpcId
          toFieldPath: spec.forProvider.vpcId
  resources:
    - name: subnet-a
      base:
        apiVersion: ec2.aws.upbound.io/v1beta1
        kind: Subnet
        spec:
          forProvider:
            cidrBlock: 10.20.1.0/24
      patches:
        - type: PatchSet
          patchSetName: subnet
        - type: FromCompositeFieldPath
          fromFieldPath: spec.region
          toFieldPath: spec.forProvider.availabilityZone
          transforms:
            - type: string
              string:
                type: Format
                fmt: "%sa"
    - name: subnet-b
      base:
        apiVersion: ec2.aws.upbound.io/v1beta1
        kind: Subnet
        spec:
          forProvider:
            cidrBlock: 10.20.2.0/24
      patches:
        - type: PatchSet
          patchSetName: subnet
        - type: FromCompositeFieldPath
          fromFieldPath: spec.region
          toFieldPath: spec.forProvider.availabilityZone
          transforms:
            - type: string
              string:
                type: Format
                fmt: "%sb"
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: database
spec:
  compositeTypeRef:
    apiVersion: platform.example.org/v1alpha1
    kind: XPostgreSQL
  resources:
    - name: instance
      base:
        apiVersion: rds.aws.upbound.io/v1beta1
        kind: Instance
        spec:
          forProvider:
            engine: postgres
            engineVersion: "16"
            allocatedStorage: 20
      patches:
        - type: FromCompositeFieldPath
          fromFieldPath: spec.region
          toFieldPath: spec.forProvider.region
        - type: FromCompositeFieldPath
          fromFieldPath: spec.instanceClass
          toFieldPath: spec.forProvider.instanceClass
        - type: FromCompositeFieldPath
          fromFieldPath: spec.vpcId
          toFieldPath: metadata.labels[platform.example.org/vpc-id]
        - type: ToCompositeFieldPath
          fromFieldPath: status.atProvider.address
          toFieldPath: status.address
`,E=`# What the cluster holds after the first reconciles: the platform's XNetwork and DNS zone, the
# network's VPC (its provider reports the id) and XSubnetGroup. The subnets, the database and
# its instance do not exist yet. Each object is owned by the XR that composed it (its
# controller reference), so each level of the tree sees its own.
apiVersion: platform.example.org/v1alpha1
kind: XNetwork
metadata:
  name: shop-6x2kq
  uid: 2b3c4d5e-6f70-4a1b-9c2d-3e4f5a6b7c8d
  annotations:
    crossplane.io/composition-resource-name: network
  ownerReferences:
    - apiVersion: platform.example.org/v1alpha1
      kind: XPlatform
      name: shop
      uid: 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f
      controller: true
      blockOwnerDeletion: true
spec:
  region: eu-west-1
  cidrBlock: 10.20.0.0/16
  resourceRefs:
    - apiVersion: ec2.aws.upbound.io/v1beta1
      kind: VPC
      name: shop-6x2kq-m4x7t
    - apiVersion: platform.example.org/v1alpha1
      kind: XSubnetGroup
      name: shop-6x2kq-p9w2c
status:
  vpcId: vpc-0a1b2c3d4e5f60718
  conditions:
    - type: Ready
      status: "False"
      reason: Creating
      message: "Unready resources: subnets"
      lastTransitionTime: "2024-01-01T00:00:00Z"
---
apiVersion: ec2.aws.upbound.io/v1beta1
kind: VPC
metadata:
  name: shop-6x2kq-m4x7t
  annotations:
    crossplane.io/composition-resource-name: vpc
  ownerReferences:
    - apiVersion: platform.example.org/v1alpha1
      kind: XNetwork
      name: shop-6x2kq
      uid: 2b3c4d5e-6f70-4a1b-9c2d-3e4f5a6b7c8d
      controller: true
      blockOwnerDeletion: true
spec:
  forProvider:
    region: eu-west-1
    cidrBlock: 10.20.0.0/16
    enableDnsSupport: true
status:
  atProvider:
    id: vpc-0a1b2c3d4e5f60718
  conditions:
    - type: Ready
      status: "True"
      reason: Available
    - type: Synced
      status: "True"
      reason: ReconcileSuccess
---
apiVersion: platform.example.org/v1alpha1
kind: XSubnetGroup
metadata:
  name: shop-6x2kq-p9w2c
  uid: 7d8e9f0a-1b2c-4d3e-8f4a-5b6c7d8e9f0a
  annotations:
    crossplane.io/composition-resource-name: subnets
  ownerReferences:
    - apiVersion: platform.example.org/v1alpha1
      kind: XNetwork
      name: shop-6x2kq
      uid: 2b3c4d5e-6f70-4a1b-9c2d-3e4f5a6b7c8d
      controller: true
      blockOwnerDeletion: true
spec:
  region: eu-west-1
status:
  conditions:
    - type: Ready
      status: "False"
      reason: Creating
      message: "Unready resources: subnet-a, subnet-b"
      lastTransitionTime: "2024-01-01T00:00:00Z"
---
apiVersion: route53.aws.upbound.io/v1beta1
kind: Zone
metadata:
  name: shop-t8p3d
  annotations:
    crossplane.io/composition-resource-name: dns
  ownerReferences:
    - apiVersion: platform.example.org/v1alpha1
      kind: XPlatform
      name: shop
      uid: 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f
      controller: true
      blockOwnerDeletion: true
spec:
  forProvider:
    name: shop.platform.example.org
    comment: managed by the platform
status:
  atProvider:
    zoneId: Z0123456789ABCDEFGHIJ
  conditions:
    - type: Ready
      status: "True"
      reason: Available
    - type: Synced
      status: "True"
      reason: ReconcileSuccess
`,D=`# What the providers write between renders (\`xprender render --until-ready --simulation\`):
# every composed resource becomes Ready and Synced and gets a name and a uid; these rules add
# what each provider reports in its status.
apiVersion: xprender.dev/v1alpha1
kind: Simulation
metadata:
  name: aws
spec:
  resources:
    - kind: VPC
      status:
        atProvider:
          id: vpc-0a1b2c3d4e5f60718
    - kind: Subnet
      copy:
        - fromFieldPath: metadata.name
          toFieldPath: status.atProvider.id
        - fromFieldPath: spec.forProvider.availabilityZone
          toFieldPath: status.atProvider.availabilityZone
    - apiVersion: rds.aws.upbound.io/v1beta1
      kind: Instance
      status:
        atProvider:
          address: shop-db.c9akciq32.eu-west-1.rds.amazonaws.com
          port: 5432
    - kind: Zone
      status:
        atProvider:
          zoneId: Z0123456789ABCDEFGHIJ
`,L=`# The shop team's platform: a network and a database, composed by their own Compositions.
apiVersion: platform.example.org/v1alpha1
kind: XPlatform
metadata:
  name: shop
  uid: 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f
spec:
  region: eu
  tier: production
`,B=`# The platform team's APIs: XPlatform composes an XNetwork and an XPostgreSQL, and the
# XNetwork composes an XSubnetGroup.
apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xplatforms.platform.example.org
spec:
  group: platform.example.org
  names:
    kind: XPlatform
    plural: xplatforms
  versions:
    - name: v1alpha1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                region:
                  type: string
                  enum: [eu, us]
                tier:
                  type: string
                  enum: [development, production]
                  default: development
              required: [region]
            status:
              type: object
              properties:
                vpcId:
                  type: string
                databaseAddress:
                  type: string
---
apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xnetworks.platform.example.org
spec:
  group: platform.example.org
  names:
    kind: XNetwork
    plural: xnetworks
  versions:
    - name: v1alpha1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                region:
                  type: string
                cidrBlock:
                  type: string
                  default: 10.0.0.0/16
              required: [region]
            status:
              type: object
              properties:
                vpcId:
                  type: string
---
apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xsubnetgroups.platform.example.org
spec:
  group: platform.example.org
  names:
    kind: XSubnetGroup
    plural: xsubnetgroups
  versions:
    - name: v1alpha1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                region:
                  type: string
                vpcId:
                  type: string
              required: [region]
---
apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xpostgresqls.platform.example.org
spec:
  group: platform.example.org
  names:
    kind: XPostgreSQL
    plural: xpostgresqls
  versions:
    - name: v1alpha1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                region:
                  type: string
                instanceClass:
                  type: string
                vpcId:
                  type: string
              required: [region]
            status:
              type: object
              properties:
                address:
                  type: string
`,j=`apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: objectstore-aws
spec:
  compositeTypeRef:
    apiVersion: storage.example.org/v1alpha1
    kind: XObjectStore
  writeConnectionSecretsToNamespace: crossplane-system
  patchSets:
    - name: common
      patches:
        - fromFieldPath: metadata.labels[team]
          toFieldPath: metadata.labels[team]
        - fromFieldPath: spec.parameters.region
          toFieldPath: spec.forProvider.region
          transforms:
            - type: map
              map:
                eu: eu-west-1
                us: us-east-1
  resources:
    - name: bucket
      base:
        apiVersion: s3.aws.upbound.io/v1beta1
        kind: Bucket
        spec:
          forProvider:
            forceDestroy: false
      patches:
        - type: PatchSet
          patchSetName: common
        - type: FromCompositeFieldPath
          fromFieldPath: metadata.name
          toFieldPath: metadata.annotations[crossplane.io/external-name]
          transforms:
            - type: string
              string:
                type: Format
                fmt: "%s-bucket"
        - type: ToCompositeFieldPath
          fromFieldPath: status.atProvider.arn
          toFieldPath: status.bucketArn
      connectionDetails:
        - name: bucket
          fromFieldPath: metadata.annotations[crossplane.io/external-name]
        - name: region
          type: FromFieldPath
          fromFieldPath: spec.forProvider.region
    - name: versioning
      base:
        apiVersion: s3.aws.upbound.io/v1beta1
        kind: BucketVersioning
        spec:
          forProvider:
            versioningConfiguration:
              - status: Suspended
      patches:
        - type: PatchSet
          patchSetName: common
        - fromFieldPath: spec.parameters.versioning
          toFieldPath: spec.forProvider.versioningConfiguration[0].status
          transforms:
            # A map matches strings only: the boolean becomes "true" or "false" first.
            - type: convert
              convert:
                toType: string
            - type: map
              map:
                "true": Enabled
                "false": Suspended
    - name: lifecycle
      base:
        apiVersion: s3.aws.upbound.io/v1beta1
        kind: BucketLifecycleConfiguration
        spec:
          forProvider:
            rule:
              - id: expire
                status: Enabled
                expiration:
                  - days: 90
      patches:
        - type: PatchSet
          patchSetName: common
        - fromFieldPath: spec.parameters.retentionDays
          toFieldPath: spec.forProvider.rule[0].expiration[0].days
        - fromFieldPath: spec.parameters.retentionDays
          toFieldPath: spec.forProvider.rule[0].id
          transforms:
            - type: string
              string:
                type: Format
                fmt: "expire-after-%dd"
      readinessChecks:
        - type: MatchCondition
          matchCondition:
            type: Synced
            status: "True"
`,q=`apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  name: team-a-assets-x7k2p
  annotations:
    crossplane.io/composition-resource-name: bucket
    crossplane.io/external-name: team-a-assets-bucket
spec:
  forProvider:
    region: eu-west-1
status:
  atProvider:
    arn: arn:aws:s3:::team-a-assets-bucket
  conditions:
    - type: Ready
      status: "True"
      reason: Available
    - type: Synced
      status: "True"
      reason: ReconcileSuccess
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: BucketLifecycleConfiguration
metadata:
  name: team-a-assets-9qz4m
  annotations:
    crossplane.io/composition-resource-name: lifecycle
status:
  conditions:
    - type: Synced
      status: "True"
      reason: ReconcileSuccess
`,O=`apiVersion: storage.example.org/v1alpha1
kind: XObjectStore
metadata:
  name: team-a-assets
  uid: 6b0f4a1c-2d3e-4f50-8a61-7b8c9d0e1f23
  labels:
    team: team-a
spec:
  parameters:
    region: eu
    versioning: true
    retentionDays: 30
  compositionRef:
    name: objectstore-aws
  writeConnectionSecretToRef:
    namespace: crossplane-system
    name: team-a-assets-conn
`,G=`apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xnetworks-aws
spec:
  compositeTypeRef:
    apiVersion: network.example.org/v1alpha1
    kind: XNetwork
  mode: Pipeline
  pipeline:
    - step: patch-and-transform
      functionRef:
        name: function-patch-and-transform
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: vpc
            base:
              apiVersion: ec2.aws.upbound.io/v1beta1
              kind: VPC
              spec:
                forProvider:
                  enableDnsSupport: true
            patches:
              - type: FromCompositeFieldPath
                fromFieldPath: spec.cidrBlock
                toFieldPath: spec.forProvider.cidrBlock
              - type: FromEnvironmentFieldPath
                fromFieldPath: region
                toFieldPath: spec.forProvider.region
              - type: CombineFromComposite
                combine:
                  variables:
                    - fromFieldPath: metadata.name
                    - fromFieldPath: spec.environment
                  strategy: string
                  string:
                    fmt: "%s-%s-vpc"
                toFieldPath: metadata.annotations[crossplane.io/external-name]
              - type: ToCompositeFieldPath
                fromFieldPath: status.atProvider.id
                toFieldPath: status.vpcId
            readinessChecks:
              - type: NonEmpty
                fieldPath: status.atProvider.id
          - name: subnet-a
            base:
              apiVersion: ec2.aws.upbound.io/v1beta1
              kind: Subnet
              spec:
                forProvider:
                  availabilityZone: a
            patches:
              - type: FromEnvironmentFieldPath
                fromFieldPath: region
                toFieldPath: spec.forProvider.region
              - type: FromEnvironmentFieldPath
                fromFieldPath: region
                toFieldPath: spec.forProvider.availabilityZone
                transforms:
                  - type: string
                    string:
                      type: Format
                      fmt: "%sa"
              - type: FromCompositeFieldPath
                fromFieldPath: spec.cidrBlock
                toFieldPath: spec.forProvider.cidrBlock
                transforms:
                  - type: string
                    string:
                      type: Regexp
                      regexp:
                        match: '^(\\d+\\.\\d+)\\.'
                        group: 1
                  - type: string
                    string:
                      type: Format
                      fmt: "%s.1.0/24"
          - name: flow-logs
            base:
              apiVersion: ec2.aws.upbound.io/v1beta1
              kind: FlowLog
              spec:
                forProvider:
                  trafficType: ALL
            patches:
              - type: FromCompositeFieldPath
                fromFieldPath: spec.logRetentionDays
                toFieldPath: spec.forProvider.maxAggregationInterval
                policy:
                  fromFieldPath: Optional
`,M=`apiVersion: apiextensions.crossplane.io/v1alpha1
kind: EnvironmentConfig
metadata:
  name: prod
data:
  region: eu-central-1
  tier: production
`,Z=`apiVersion: ec2.aws.upbound.io/v1beta1
kind: VPC
metadata:
  name: prod-net-vpc-4kx9q
  annotations:
    crossplane.io/composition-resource-name: vpc
status:
  atProvider:
    id: vpc-0a1b2c3d4e5f60718
  conditions:
    - type: Ready
      status: "True"
      reason: Available
`,z=`apiVersion: network.example.org/v1alpha1
kind: XNetwork
metadata:
  name: prod-net
  uid: 3c1d5e7f-9a2b-4c4d-8e6f-0a1b2c3d4e5f
spec:
  cidrBlock: 10.20.0.0/16
  subnets: 2
  environment: prod
`,Q=`# PostgreSQL on AWS: a security group, a subnet group, a parameter group, the RDS instance
# and a backup bucket, plus a ConfigMap that publishes the endpoint to the application.
# Every patch type appears at least once; see README.md for a tour.
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: postgresql-aws
  labels:
    provider: aws
    engine: postgres
spec:
  compositeTypeRef:
    apiVersion: platform.example.org/v1alpha1
    kind: XPostgreSQLInstance
  writeConnectionSecretsToNamespace: crossplane-system
  environment:
    defaultData:
      environment: staging
      costCenter: cc-0000
      backup:
        retentionDays: 7
    patches:
      # The XR's team becomes the environment's owner, for resources to read back.
      - type: FromCompositeFieldPath
        fromFieldPath: spec.parameters.team
        toFieldPath: owner
        transforms:
          - type: string
            string:
              type: Convert
              convert: ToLower
  patchSets:
    - name: common
      patches:
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.region
          toFieldPath: spec.forProvider.region
          transforms:
            - type: map
              map:
                eu: eu-west-1
                us: us-east-1
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.team
          toFieldPath: metadata.labels[platform.example.org/team]
          transforms:
            - type: string
              string:
                type: Convert
                convert: ToLower
  resources:
    - name: security-group
      base:
        apiVersion: ec2.aws.upbound.io/v1beta1
        kind: SecurityGroup
        spec:
          forProvider:
            description: PostgreSQL access
            vpcIdSelector:
              matchLabels:
                networks.platform.example.org/name: main
      patches:
        - type: PatchSet
          patchSetName: common
        - type: CombineFromComposite
          combine:
            variables:
              - fromFieldPath: metadata.name
              - fromFieldPath: spec.parameters.region
            strategy: string
            string:
              fmt: "%s-postgres-%s"
          toFieldPath: spec.forProvider.name
        - type: ToCompositeFieldPath
          fromFieldPath: status.atProvider.id
          toFieldPath: status.securityGroupId

    - name: subnet-group
      base:
        apiVersion: rds.aws.upbound.io/v1beta1
        kind: SubnetGroup
        spec:
          forProvider:
            description: private subnets
            subnetIdSelector:
              matchLabels:
                networks.platform.example.org/tier: private
      patches:
        - type: PatchSet
          patchSetName: common
        - type: FromCompositeFieldPath
          fromFieldPath: metadata.name
          toFieldPath: spec.forProvider.description
          transforms:
            - type: string
              string:
                type: Format
                fmt: "private subnets of %s"

    - name: parameter-group
      base:
        apiVersion: rds.aws.upbound.io/v1beta1
        kind: ClusterParameterGroup
        spec:
          forProvider:
            family: postgres15
            parameter:
              - name: log_min_duration_statement
                value: "500"
      patches:
        - type: PatchSet
          patchSetName: common
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.version
          toFieldPath: spec.forProvider.family
          transforms:
            - type: string
              string:
                type: Format
                fmt: "postgres%s"
        - type: FromEnvironmentFieldPath
          fromFieldPath: environment
          toFieldPath: metadata.labels[platform.example.org/environment]
        - type: CombineFromEnvironment
          combine:
            variables:
              - fromFieldPath: costCenter
              - fromFieldPath: owner
            strategy: string
            string:
              fmt: "%s/%s"
          toFieldPath: metadata.annotations[platform.example.org/billing]
      readinessChecks:
        - type: None

    - name: instance
      base:
        apiVersion: rds.aws.upbound.io/v1beta1
        kind: Instance
        spec:
          forProvider:
            engine: postgres
            username: app
            autoGeneratePassword: true
            passwordSecretRef:
              key: password
              namespace: crossplane-system
            skipFinalSnapshot: true
            publiclyAccessible: false
          writeConnectionSecretToRef:
            namespace: crossplane-system
      patches:
        - type: PatchSet
          patchSetName: common
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.size
          toFieldPath: spec.forProvider.instanceClass
          transforms:
            - type: map
              map:
                small: db.t3.small
                medium: db.m6g.large
                large: db.m6g.2xlarge
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.storageGB
          toFieldPath: spec.forProvider.maxAllocatedStorage
          transforms:
            - type: math
              math:
                type: Multiply
                multiply: 5
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.storageGB
          toFieldPath: spec.forProvider.allocatedStorage
          transforms:
            - type: math
              math:
                type: ClampMin
                clampMin: 20
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.version
          toFieldPath: spec.forProvider.engineVersion
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.deletionProtection
          toFieldPath: spec.forProvider.deletionProtection
          policy:
            fromFieldPath: Optional
        - type: FromCompositeFieldPath
          fromFieldPath: metadata.uid
          toFieldPath: spec.writeConnectionSecretToRef.name
          transforms:
            - type: string
              string:
                type: Format
                fmt: "%s-postgresql"
        - type: FromCompositeFieldPath
          fromFieldPath: metadata.name
          toFieldPath: spec.forProvider.passwordSecretRef.name
          transforms:
            - type: string
              string:
                type: Format
                fmt: "%s-master-password"
        - type: ToCompositeFieldPath
          fromFieldPath: status.atProvider.address
          toFieldPath: status.address
        - type: CombineToComposite
          combine:
            variables:
              - fromFieldPath: status.atProvider.address
              - fromFieldPath: status.atProvider.port
            strategy: string
            string:
              fmt: "%s:%d"
          toFieldPath: status.endpoint
      connectionDetails:
        - name: username
          type: FromConnectionSecretKey
          fromConnectionSecretKey: username
        - name: password
          type: FromConnectionSecretKey
          fromConnectionSecretKey: attribute.password
        - name: endpoint
          type: FromFieldPath
          fromFieldPath: status.atProvider.address
        - name: port
          type: FromFieldPath
          fromFieldPath: status.atProvider.port
        - name: sslmode
          type: FromValue
          value: require
      readinessChecks:
        - type: MatchCondition
          matchCondition:
            type: Ready
            status: "True"
        - type: NonEmpty
          fieldPath: status.atProvider.address
        - type: MatchInteger
          fieldPath: status.atProvider.port
          matchInteger: 5432

    - name: backup-bucket
      base:
        apiVersion: s3.aws.upbound.io/v1beta1
        kind: Bucket
        spec:
          forProvider:
            forceDestroy: false
      patches:
        - type: PatchSet
          patchSetName: common
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.deletionProtection
          toFieldPath: spec.forProvider.forceDestroy
          transforms:
            - type: convert
              convert:
                toType: string
            - type: match
              match:
                patterns:
                  - type: literal
                    literal: "true"
                    result: false
                fallbackValue: true
        - type: FromEnvironmentFieldPath
          fromFieldPath: backup.retentionDays
          toFieldPath: metadata.annotations[platform.example.org/retention-days]
          transforms:
            - type: convert
              convert:
                toType: string
      readinessChecks:
        - type: MatchString
          fieldPath: status.atProvider.region
          matchString: eu-west-1

    - name: app-config
      base:
        apiVersion: kubernetes.crossplane.io/v1alpha2
        kind: Object
        spec:
          forProvider:
            manifest:
              apiVersion: v1
              kind: ConfigMap
              metadata:
                namespace: orders
              data: {}
      patches:
        - type: FromCompositeFieldPath
          fromFieldPath: metadata.labels[crossplane.io/claim-name]
          toFieldPath: spec.forProvider.manifest.metadata.name
          transforms:
            - type: string
              string:
                type: Format
                fmt: "%s-database"
        - type: FromCompositeFieldPath
          fromFieldPath: status.endpoint
          toFieldPath: spec.forProvider.manifest.data.DATABASE_ENDPOINT
        - type: FromCompositeFieldPath
          fromFieldPath: spec.parameters.region
          toFieldPath: spec.forProvider.manifest.data.REGION
          transforms:
            - type: string
              string:
                type: Convert
                convert: ToUpper
        - type: ToEnvironmentFieldPath
          fromFieldPath: spec.forProvider.manifest.metadata.name
          toFieldPath: configMapName
        - type: CombineToEnvironment
          combine:
            variables:
              - fromFieldPath: spec.forProvider.manifest.metadata.namespace
              - fromFieldPath: spec.forProvider.manifest.metadata.name
            strategy: string
            string:
              fmt: "%s/%s"
          toFieldPath: configMapRef
      readinessChecks:
        - type: MatchCondition
          matchCondition:
            type: Synced
            status: "True"
`,U=`# Per-cluster settings, as an EnvironmentConfig selected for this Composition.
apiVersion: apiextensions.crossplane.io/v1alpha1
kind: EnvironmentConfig
metadata:
  name: production
data:
  environment: production
  costCenter: cc-4711
  backup:
    retentionDays: 14
`,K=`# What the cluster holds after the first reconcile: the composed resources as their
# providers report them, and the connection Secret the RDS instance wrote.
apiVersion: ec2.aws.upbound.io/v1beta1
kind: SecurityGroup
metadata:
  name: orders-db-9xq4s
  annotations:
    crossplane.io/composition-resource-name: security-group
spec:
  forProvider:
    region: eu-west-1
status:
  atProvider:
    id: sg-0a1b2c3d4e5f67890
  conditions:
    - type: Ready
      status: "True"
      reason: Available
    - type: Synced
      status: "True"
      reason: ReconcileSuccess
---
apiVersion: rds.aws.upbound.io/v1beta1
kind: Instance
metadata:
  name: orders-db-k7m2p
  annotations:
    crossplane.io/composition-resource-name: instance
spec:
  forProvider:
    region: eu-west-1
    instanceClass: db.m6g.large
  writeConnectionSecretToRef:
    name: orders-db-postgresql
    namespace: crossplane-system
status:
  atProvider:
    address: orders-db-k7m2p.c9akciq32.eu-west-1.rds.amazonaws.com
    port: 5432
    status: available
  conditions:
    - type: Ready
      status: "True"
      reason: Available
    - type: Synced
      status: "True"
      reason: ReconcileSuccess
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  name: orders-db-h5v8w
  annotations:
    crossplane.io/composition-resource-name: backup-bucket
status:
  atProvider:
    region: eu-west-1
  conditions:
    - type: Ready
      status: "True"
      reason: Available
---
apiVersion: v1
kind: Secret
metadata:
  name: orders-db-postgresql
  namespace: crossplane-system
type: connection.crossplane.io/v1alpha1
data:
  username: YXBw
  attribute.password: czNjcjN0LVBhNTU=
`,W=`# A database for the orders service. \`deletionProtection: yes\` is a YAML 1.1 boolean,
# read as true exactly like kubectl reads it.
apiVersion: platform.example.org/v1alpha1
kind: XPostgreSQLInstance
metadata:
  name: orders-db
  labels:
    crossplane.io/claim-name: orders-db
    crossplane.io/claim-namespace: orders
spec:
  compositionSelector:
    matchLabels:
      provider: aws
      engine: postgres
  parameters:
    region: eu
    size: medium
    storageGB: 20
    version: "15"
    team: Payments
    deletionProtection: yes
  writeConnectionSecretToRef:
    name: orders-db-connection
    namespace: crossplane-system
`,$=`# The platform team's PostgreSQL API: developers ask for a database by size and region.
apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xpostgresqlinstances.platform.example.org
spec:
  group: platform.example.org
  names:
    kind: XPostgreSQLInstance
    plural: xpostgresqlinstances
  claimNames:
    kind: PostgreSQLInstance
    plural: postgresqlinstances
  defaultCompositionRef:
    name: postgresql-aws
  connectionSecretKeys:
    - username
    - password
    - endpoint
    - port
  versions:
    - name: v1alpha1
      served: true
      referenceable: true
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties:
                parameters:
                  type: object
                  properties:
                    region:
                      type: string
                      enum: [eu, us]
                    size:
                      type: string
                      enum: [small, medium, large]
                    storageGB:
                      type: integer
                      minimum: 10
                    version:
                      type: string
                    team:
                      type: string
                    deletionProtection:
                      type: boolean
                  required: [region, size, storageGB]
              required: [parameters]
            status:
              type: object
              properties:
                address:
                  type: string
                endpoint:
                  type: string
                securityGroupId:
                  type: string
`,J=`# Four Compositions, one per XR type: the XPlatform's composes an XNetwork and an XCluster, which
# their own Compositions compose; the XNetwork's composes an XSubnets in turn. Values flow down
# (region, size) and up (the VPC's id, through each XR's status, to the cluster).
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: platform
spec:
  compositeTypeRef:
    apiVersion: platform.example.org/v1alpha1
    kind: XPlatform
  resources:
    - name: network
      base:
        apiVersion: platform.example.org/v1alpha1
        kind: XNetwork
        spec: {}
      patches:
        - fromFieldPath: spec.region
          toFieldPath: spec.region
        - type: ToCompositeFieldPath
          fromFieldPath: status.vpcId
          toFieldPath: status.vpcId
    - name: cluster
      base:
        apiVersion: platform.example.org/v1alpha1
        kind: XCluster
        spec: {}
      patches:
        - fromFieldPath: spec.size
          toFieldPath: spec.nodes
          transforms:
            - type: map
              map: {small: "1", large: "5"}
        - fromFieldPath: status.vpcId
          toFieldPath: spec.vpcId
    - name: dns
      base:
        apiVersion: route53.aws.example.org/v1
        kind: Zone
        spec:
          forProvider: {}
          writeConnectionSecretToRef:
            namespace: crossplane-system
      patches:
        - fromFieldPath: metadata.name
          toFieldPath: spec.forProvider.name
          transforms:
            - type: string
              string: {type: Format, fmt: "%s.example.org"}
        - fromFieldPath: metadata.name
          toFieldPath: spec.writeConnectionSecretToRef.name
          transforms:
            - type: string
              string: {type: Format, fmt: "%s-dns"}
      connectionDetails:
        - name: nameservers
          type: FromConnectionSecretKey
          fromConnectionSecretKey: nameservers
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: network
spec:
  compositeTypeRef:
    apiVersion: platform.example.org/v1alpha1
    kind: XNetwork
  resources:
    - name: vpc
      base:
        apiVersion: ec2.aws.example.org/v1
        kind: VPC
        spec:
          forProvider:
            cidrBlock: 10.0.0.0/16
      patches:
        - fromFieldPath: spec.region
          toFieldPath: spec.forProvider.region
        - type: ToCompositeFieldPath
          fromFieldPath: status.atProvider.id
          toFieldPath: status.vpcId
    - name: subnets
      base:
        apiVersion: platform.example.org/v1alpha1
        kind: XSubnets
        spec: {}
      patches:
        - fromFieldPath: spec.region
          toFieldPath: spec.region
        - fromFieldPath: status.vpcId
          toFieldPath: spec.vpcId
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: subnets
spec:
  compositeTypeRef:
    apiVersion: platform.example.org/v1alpha1
    kind: XSubnets
  resources:
    - name: subnet-a
      base:
        apiVersion: ec2.aws.example.org/v1
        kind: Subnet
        spec:
          forProvider:
            cidrBlock: 10.0.1.0/24
      patches:
        - fromFieldPath: spec.vpcId
          toFieldPath: spec.forProvider.vpcId
        - fromFieldPath: spec.region
          toFieldPath: spec.forProvider.availabilityZone
          transforms:
            - type: string
              string: {type: Format, fmt: "%sa"}
    - name: subnet-b
      base:
        apiVersion: ec2.aws.example.org/v1
        kind: Subnet
        spec:
          forProvider:
            cidrBlock: 10.0.2.0/24
      patches:
        - fromFieldPath: spec.vpcId
          toFieldPath: spec.forProvider.vpcId
        - fromFieldPath: spec.region
          toFieldPath: spec.forProvider.availabilityZone
          transforms:
            - type: string
              string: {type: Format, fmt: "%sb"}
---
apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: cluster
spec:
  compositeTypeRef:
    apiVersion: platform.example.org/v1alpha1
    kind: XCluster
  resources:
    - name: eks
      base:
        apiVersion: eks.aws.example.org/v1
        kind: Cluster
        spec:
          forProvider: {}
      patches:
        - fromFieldPath: spec.nodes
          toFieldPath: spec.forProvider.nodes
          transforms:
            - type: convert
              convert: {toType: int64}
        - fromFieldPath: spec.vpcId
          toFieldPath: spec.forProvider.vpcConfig.vpcId
`,Y=`# What the simulated providers write between iterations (xprender's Simulation document): every
# composed resource becomes Ready; the VPC gets an id, each Subnet reports its zone, and the Zone
# writes its connection Secret.
apiVersion: xprender.dev/v1alpha1
kind: Simulation
metadata:
  name: aws
spec:
  resources:
    - kind: VPC
      status:
        atProvider:
          id: vpc-0a1b2c3d
    - apiVersion: ec2.aws.example.org/v1
      kind: Subnet
      copy:
        - fromFieldPath: spec.forProvider.availabilityZone
          toFieldPath: status.atProvider.availabilityZone
    - kind: Zone
      connectionDetails:
        nameservers: ns-1.awsdns.example.org
`,H=`# A platform for the payments team: a network (a VPC and a set of subnets, themselves an XR) and
# a Kubernetes cluster (an XR too), each composed by its own Composition.
apiVersion: platform.example.org/v1alpha1
kind: XPlatform
metadata:
  name: payments
spec:
  region: eu-west-1
  size: large
`,F="platform-db";function ee(n){const e={};for(const[s,t]of Object.entries(n)){const a=/examples\/([^/]+)\/([^/]+)\.yaml$/.exec(s);a&&((e[a[1]]??={})[a[2]]=t)}const o={};for(const s of Object.keys(e).sort()){const t=e[s];if(!t.xr||!t.composition)continue;const a=[t.observed,t.environment,t.simulation].filter(Boolean).map(ne).join(`---
`);o[s]={xr:t.xr,composition:t.composition,observed:a},t.simulation&&(o[s].untilReady=!0)}return o}function ne(n){return n.endsWith(`
`)?n:`${n}
`}function te(n){const e=Object.keys(n);return e.includes(F)?F:e[0]}const oe=2e3;class ae{constructor(e,o,{overrunMs:s=oe,setTimer:t=setTimeout,clearTimer:a=clearTimeout}={}){this.spawn=e,this.onAnswer=o,this.overrunMs=s,this.setTimer=(r,i)=>t(r,i),this.clearTimer=r=>a(r),this.nextId=1,this.inFlight=null,this.pending=null,this.replaced=0,this.worker=this.start()}start(){const e=this.spawn();return e.onmessage=o=>this.answered(e,o.data),e}submit(e){this.pending=e,this.inFlight||this.sendPending()}sendPending(){const e=this.pending;if(this.pending=null,e===null)return;const o=this.nextId++,s=this.setTimer(()=>this.overrun(o),this.overrunMs);this.inFlight={id:o,timer:s},this.worker.postMessage({id:o,request:e})}answered(e,o){e!==this.worker||!this.inFlight||o.id!==this.inFlight.id||(this.clearTimer(this.inFlight.timer),this.inFlight=null,this.onAnswer(o),this.sendPending())}overrun(e){!this.inFlight||this.inFlight.id!==e||(this.inFlight=null,this.worker.terminate(),this.replaced++,this.worker=this.start(),this.onAnswer({id:e,error:{kind:"Timeout",message:`render did not finish within ${this.overrunMs} ms; it was stopped`,context:{}}}),this.sendPending())}}const y=ee(Object.assign({"../../examples/nested-platform/composition.yaml":A,"../../examples/nested-platform/observed.yaml":E,"../../examples/nested-platform/simulation.yaml":D,"../../examples/nested-platform/xr.yaml":L,"../../examples/nested-platform/xrd.yaml":B,"../../examples/object-storage/composition.yaml":j,"../../examples/object-storage/observed.yaml":q,"../../examples/object-storage/xr.yaml":O,"../../examples/pipeline-network/composition.yaml":G,"../../examples/pipeline-network/environment.yaml":M,"../../examples/pipeline-network/observed.yaml":Z,"../../examples/pipeline-network/xr.yaml":z,"../../examples/platform-db/composition.yaml":Q,"../../examples/platform-db/environment.yaml":U,"../../examples/platform-db/observed.yaml":K,"../../examples/platform-db/xr.yaml":W,"../../examples/platform-db/xrd.yaml":$,"../../examples/platform-tree/composition.yaml":J,"../../examples/platform-tree/simulation.yaml":Y,"../../examples/platform-tree/xr.yaml":H})),se=window.__xprender={renders:[],firstOutputAt:null,replaced:0};let f=null,P=[],k;const re=new Promise(n=>k=n),w=new ae(()=>new Worker(new URL(""+new URL("worker-DUJDsgLO.js",import.meta.url).href,import.meta.url),{type:"module"}),n=>{if(f)return f(n);P.push(n),k(),n.yaml&&P.length===1&&(x("out-resources",n.yaml.resources),requestAnimationFrame(()=>se.firstOutputAt??=performance.now()))});function x(n,e){const o=document.createElement("pre");o.className="plain",o.textContent=e,document.getElementById(n).replaceChildren(o)}async function ie(){const n=await T(location.hash);if(n)return{state:n,example:""};try{const o=JSON.parse(localStorage.getItem(R)??"null");if(o&&typeof o.xr=="string")return{state:o,example:""}}catch{}const e=te(y);return{state:e?y[e]:{xr:"",composition:"",observed:""},example:e??""}}const{state:h,example:pe}=await ie(),{semantics:C,iterate:S}=V(h),v={xr:h.xr??"",composition:h.composition??"",observed:h.observed??""};w.submit({texts:v,semantics:C,iterate:S});for(const n of Object.keys(v))x(n,v[n]);await Promise.race([re,new Promise(n=>setTimeout(n,1e3))]);const{start:me}=await N(async()=>{const{start:n}=await import("./main-iLvG7Rk9.js");return{start:n}},__vite__mapDeps([0,1]),import.meta.url);f=me({renderer:w,examples:y,texts:v,semantics:C,iterate:S,example:pe});for(const n of P)f(n);P=[];
