const __vite__mapDeps=(i,m=__vite__mapDeps,d=(m.f||(m.f=["./main-yHzGwYPo.js","./share-DwVkaz7u.js"])))=>i.map(i=>d[i]);
import{c as g,r as F,_ as k,d as w,S,a as C}from"./share-DwVkaz7u.js";(function(){const e=document.createElement("link").relList;if(e&&e.supports&&e.supports("modulepreload"))return;for(const t of document.querySelectorAll('link[rel="modulepreload"]'))s(t);new MutationObserver(t=>{for(const o of t)if(o.type==="childList")for(const r of o.addedNodes)r.tagName==="LINK"&&r.rel==="modulepreload"&&s(r)}).observe(document,{childList:!0,subtree:!0});function n(t){const o={};return t.integrity&&(o.integrity=t.integrity),t.referrerPolicy&&(o.referrerPolicy=t.referrerPolicy),t.crossOrigin==="use-credentials"?o.credentials="include":t.crossOrigin==="anonymous"?o.credentials="omit":o.credentials="same-origin",o}function s(t){if(t.ep)return;t.ep=!0;const o=n(t);fetch(t.href,o)}})();const x=`apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xnetworks.aws.platformref.upbound.io
  labels:
    provider: aws
spec:
  writeConnectionSecretsToNamespace: upbound-system
  compositeTypeRef:
    apiVersion: aws.platformref.upbound.io/v1alpha1
    kind: XNetwork
  mode: Pipeline
  pipeline:
  - step: patch-and-transform
    functionRef:
      name: crossplane-contrib-function-patch-and-transform
    input:
      apiVersion: pt.fn.crossplane.io/v1beta1
      kind: Resources
      patchSets:
      - name: network-id
        patches:
        - type: FromCompositeFieldPath
          fromFieldPath: spec.id
          toFieldPath: metadata.labels[networks.aws.platformref.upbound.io/network-id]
      resources:
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: VPC
            spec:
              forProvider:
                region: us-west-2
                cidrBlock: 192.168.0.0/16
                enableDnsSupport: true
                enableDnsHostnames: true
                tags:
                  Owner: Platform Team
                  Name: platformref-vpc
          name: platformref-vcp
          patches:
            - type: PatchSet
              patchSetName: network-id
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: InternetGateway
            spec:
              forProvider:
                region: us-west-2
                vpcIdSelector:
                  matchControllerRef: true
          name: gateway
          patches:
            - type: PatchSet
              patchSetName: network-id
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: Subnet
            metadata:
              labels:
                zone: us-west-2a
                access: public
            spec:
              forProvider:
                region: us-west-2
                mapPublicIpOnLaunch: true
                cidrBlock: 192.168.0.0/18
                vpcIdSelector:
                  matchControllerRef: true
                availabilityZone: us-west-2a
                tags:
                  kubernetes.io/role/elb: "1"
          name: subnet-public-west-2a
          patches:
            - type: PatchSet
              patchSetName: network-id
            - type: ToCompositeFieldPath
              fromFieldPath: metadata.annotations[crossplane.io/external-name]
              toFieldPath: status.subnetIds[0]
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: Subnet
            metadata:
              labels:
                zone: us-west-2b
                access: public
            spec:
              forProvider:
                region: us-west-2
                mapPublicIpOnLaunch: true
                cidrBlock: 192.168.64.0/18
                vpcIdSelector:
                  matchControllerRef: true
                availabilityZone: us-west-2b
                tags:
                  kubernetes.io/role/elb: "1"
          name: subnet-public-west-2b
          patches:
            - type: PatchSet
              patchSetName: network-id
            - type: ToCompositeFieldPath
              fromFieldPath: metadata.annotations[crossplane.io/external-name]
              toFieldPath: status.subnetIds[1]
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: Subnet
            metadata:
              labels:
                zone: us-west-2a
                access: private
            spec:
              forProvider:
                region: us-west-2
                cidrBlock: 192.168.128.0/18
                vpcIdSelector:
                  matchControllerRef: true
                availabilityZone: us-west-2a
                tags:
                  kubernetes.io/role/internal-elb: "1"
          name: subnet-private-west-2a
          patches:
            - type: PatchSet
              patchSetName: network-id
            - type: ToCompositeFieldPath
              fromFieldPath: metadata.annotations[crossplane.io/external-name]
              toFieldPath: status.subnetIds[2]
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: Subnet
            metadata:
              labels:
                zone: us-west-2b
                access: private
            spec:
              forProvider:
                region: us-west-2
                cidrBlock: 192.168.192.0/18
                vpcIdSelector:
                  matchControllerRef: true
                availabilityZone: us-west-2b
                tags:
                  kubernetes.io/role/internal-elb: "1"
          name: subnet-private-west-2b
          patches:
            - type: PatchSet
              patchSetName: network-id
            - type: ToCompositeFieldPath
              fromFieldPath: metadata.annotations[crossplane.io/external-name]
              toFieldPath: status.subnetIds[3]
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: RouteTable
            spec:
              forProvider:
                region: us-west-2
                vpcIdSelector:
                  matchControllerRef: true
          name: routeTable
          patches:
            - type: PatchSet
              patchSetName: network-id
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: Route
            spec:
              forProvider:
                region: us-west-2
                destinationCidrBlock: 0.0.0.0/0
                gatewayIdSelector:
                  matchControllerRef: true
                routeTableIdSelector:
                  matchControllerRef: true
          name: route
          patches:
            - type: PatchSet
              patchSetName: network-id
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: MainRouteTableAssociation
            spec:
              forProvider:
                region: us-west-2
                routeTableIdSelector:
                  matchControllerRef: true
                vpcIdSelector:
                  matchControllerRef: true
          name: mainRouteTableAssociation
          patches:
            - type: PatchSet
              patchSetName: network-id
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: RouteTableAssociation
            spec:
              forProvider:
                region: us-west-2
                routeTableIdSelector:
                  matchControllerRef: true
                subnetIdSelector:
                  matchControllerRef: true
                  matchLabels:
                    zone: us-west-2a
                    access: public
          name: RouteTableAssociation-public-a
          patches:
            - type: PatchSet
              patchSetName: network-id
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: RouteTableAssociation
            spec:
              forProvider:
                region: us-west-2
                routeTableIdSelector:
                  matchControllerRef: true
                subnetIdSelector:
                  matchControllerRef: true
                  matchLabels:
                    zone: us-west-2b
                    access: public
          name: RouteTableAssociation-public-b
          patches:
            - type: PatchSet
              patchSetName: network-id
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: RouteTableAssociation
            spec:
              forProvider:
                region: us-west-2
                routeTableIdSelector:
                  matchControllerRef: true
                subnetIdSelector:
                  matchControllerRef: true
                  matchLabels:
                    zone: us-west-2a
                    access: private
          name: RouteTableAssociation-private-a
          patches:
            - type: PatchSet
              patchSetName: network-id
        - base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: RouteTableAssociation
            spec:
              forProvider:
                region: us-west-2
                routeTableIdSelector:
                  matchControllerRef: true
                subnetIdSelector:
                  matchControllerRef: true
                  matchLabels:
                    zone: us-west-2b
                    access: private
          name: RouteTableAssociation-private-b
          patches:
            - type: PatchSet
              patchSetName: network-id
        - name: securityGroup
          base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: SecurityGroup
            spec:
              forProvider:
                region: us-west-2
                vpcIdSelector:
                  matchControllerRef: true
                name: platform-ref-aws-cluster
                description: Allow access to databases
          patches:
            - type: PatchSet
              patchSetName: network-id
            - type: ToCompositeFieldPath
              fromFieldPath: metadata.annotations[crossplane.io/external-name]
              toFieldPath: status.securityGroupIds[0]
        - name: securityGroupRulePostgres
          base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: SecurityGroupRule
            spec:
              forProvider:
                region: us-west-2
                type: ingress
                fromPort: 5432
                toPort: 5432
                protocol: tcp
                cidrBlocks:
                  - 0.0.0.0/0
                securityGroupIdSelector:
                  matchControllerRef: true
                description: Everywhere
          patches:
            - type: PatchSet
              patchSetName: network-id
        - name: securityGroupRuleMysql
          base:
            apiVersion: ec2.aws.upbound.io/v1beta1
            kind: SecurityGroupRule
            spec:
              forProvider:
                region: us-west-2
                type: ingress
                fromPort: 3306
                toPort: 3306
                protocol: tcp
                cidrBlocks:
                  - 0.0.0.0/0
                securityGroupIdSelector:
                  matchControllerRef: true
                description: Everywhere
          patches:
            - type: PatchSet
              patchSetName: network-id
`,_=`apiVersion: aws.platformref.upbound.io/v1alpha1
kind: XNetwork
metadata:
  name: ref-aws-network
spec:
  id: ref-aws-network-from-xr
`,V=`apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xnetworks.aws.platformref.upbound.io
spec:
  group: aws.platformref.upbound.io
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
                id:
                  type: string
                  description: ID of this Network that other objects will use to refer to it.
                parameters:
                  type: object
                  properties:
                    deletionPolicy:
                      type: string
                      default: Delete
                      description: Delete or Orphan
                      enum:
                        - Delete
                        - Orphan
                  region:
                    type: string
                    default: us-west-2
                    description: AWS region
                    enum:
                      - af-south-1      # Africa (Cape Town)
                      - ap-east-1       # Asia Pacific (Hong Kong)
                      - ap-northeast-1  # Asia Pacific (Singapore)
                      - ap-northeast-2  # Asia Pacific (Seoul)
                      - ap-northeast-3  # Asia Pacific (Osaka)
                      - ap-south-1      # Asia Pacific (Mumbai)
                      - ap-south-2      # Asia Pacific (Hyderabad)
                      - ap-southeast-1  # Asia Pacific (Singapore)
                      - ap-southeast-2  # Asia Pacific (Sydney)
                      - ap-southeast-3  # Asia Pacific (Jakarta)
                      - ap-southeast-4  # Asia Pacific (Melbourne)
                      - ca-central-1    # Canada (Central)
                      - eu-central-1    # Europe (Frankfurt)
                      - eu-central-2    # Europe (Zurich)
                      - eu-west-1       # Europe (Ireland)
                      - eu-west-2       # Europe (London)
                      - eu-west-3       # Europe (Paris)
                      - eu-north-1      # Europe (Stockholm)
                      - eu-south-1      # Europe (Milan)
                      - me-central-1    # Middle East (UAE)
                      - me-south-1      # Middle East (Bahrain)
                      - sa-east-1       # South America (São Paulo)
                      - us-east-1       # US East (N. Virginia)
                      - us-east-2       # US East (Ohio)
                      - us-west-1       # US West (N. California)
                      - us-west-2       # US West (Oregon)
              required:
                - id
            status:
              type: object
              properties:
                subnetIds:
                  type: array
                  items:
                    type: string
                securityGroupIds:
                  type: array
                  items:
                    type: string
`,R=`apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xnetworks.gcp.platformref.upbound.io
  labels:
    provider: GCP
spec:
  writeConnectionSecretsToNamespace: upbound-system
  compositeTypeRef:
    apiVersion: gcp.platformref.upbound.io/v1alpha1
    kind: XNetwork
  resources:
    - base:
        apiVersion: compute.gcp.upbound.io/v1beta1
        kind: Network
        spec:
          forProvider:
            autoCreateSubnetworks: false
            routingMode: REGIONAL
      patches:
        - fromFieldPath: spec.id
          toFieldPath: metadata.labels[networks.gcp.platformref.upbound.io/network-id]
    - base:
        apiVersion: compute.gcp.upbound.io/v1beta1
        kind: Subnetwork
        spec:
          forProvider:
            region: us-west2
            networkSelector:
              # This selector ensures this Subnetwork will select and use the
              # above Network. They will both be part of the XR, and thus their
              # controller references will match.
              matchControllerRef: true
            privateIpGoogleAccess: true
            ipCidrRange: 172.16.0.0/16
            secondaryIpRange:
              - rangeName: pods
                ipCidrRange: 10.200.0.0/14
              - rangeName: services
                ipCidrRange: 10.204.0.0/16
      patches:
        - fromFieldPath: spec.id
          toFieldPath: metadata.labels[networks.gcp.platformref.upbound.io/network-id]
`,T=`apiVersion: gcp.platformref.upbound.io/v1alpha1
kind: XNetwork
metadata:
  name: platform-ref-gcp-cluster
spec:
  id: platform-ref-gcp-cluster
`,I=`apiVersion: apiextensions.crossplane.io/v1
kind: CompositeResourceDefinition
metadata:
  name: xnetworks.gcp.platformref.upbound.io
spec:
  group: gcp.platformref.upbound.io
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
                id:
                  type: string
                  description: ID of this Network that other objects will use to refer to it.
              required:
                - id
`,N=`# The platform's Compositions, one per XR type: XPlatform (the top), XNetwork and XPostgreSQL
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
`,A=`# What the cluster holds after the first reconciles: the platform's XNetwork and DNS zone, the
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
`,X=`# What the providers write between renders (\`xprender render --until-ready --simulation\`):
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
`,E=`# The shop team's platform: a network and a database, composed by their own Compositions.
apiVersion: platform.example.org/v1alpha1
kind: XPlatform
metadata:
  name: shop
  uid: 6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f
spec:
  region: eu
  tier: production
`,D=`# The platform team's APIs: XPlatform composes an XNetwork and an XPostgreSQL, and the
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
`,B=`apiVersion: apiextensions.crossplane.io/v1
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
`,L=`apiVersion: s3.aws.upbound.io/v1beta1
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
`,j=`apiVersion: apiextensions.crossplane.io/v1
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
`,G=`apiVersion: apiextensions.crossplane.io/v1alpha1
kind: EnvironmentConfig
metadata:
  name: prod
data:
  region: eu-central-1
  tier: production
`,q=`apiVersion: ec2.aws.upbound.io/v1beta1
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
`,M=`apiVersion: network.example.org/v1alpha1
kind: XNetwork
metadata:
  name: prod-net
  uid: 3c1d5e7f-9a2b-4c4d-8e6f-0a1b2c3d4e5f
spec:
  cidrBlock: 10.20.0.0/16
  subnets: 2
  environment: prod
`,Z=`apiVersion: apiextensions.crossplane.io/v1
kind: Composition
metadata:
  name: xbuckets-steps
spec:
  compositeTypeRef:
    apiVersion: storage.example.org/v1alpha1
    kind: XBucket
  mode: Pipeline
  pipeline:
    # Step 1: the bucket itself.
    - step: bucket
      functionRef:
        name: function-patch-and-transform
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: bucket
            base:
              apiVersion: s3.aws.upbound.io/v1beta1
              kind: Bucket
              spec:
                forProvider:
                  forceDestroy: false
            patches:
              - type: FromCompositeFieldPath
                fromFieldPath: spec.region
                toFieldPath: spec.forProvider.region
              - type: FromCompositeFieldPath
                fromFieldPath: spec.team
                toFieldPath: metadata.labels[team]
              - type: ToCompositeFieldPath
                fromFieldPath: status.atProvider.arn
                toFieldPath: status.bucketArn
            # Not ready by this step's own check (the provider writes no id); auto-ready decides.
            readinessChecks:
              - type: NonEmpty
                fieldPath: status.atProvider.id
    # Step 2: what the bucket needs around it: a lifecycle rule.
    - step: lifecycle
      functionRef:
        name: function-patch-and-transform
      input:
        apiVersion: pt.fn.crossplane.io/v1beta1
        kind: Resources
        resources:
          - name: lifecycle
            base:
              apiVersion: s3.aws.upbound.io/v1beta1
              kind: BucketLifecycleConfiguration
              spec:
                forProvider:
                  rule:
                    - id: expire
                      status: Enabled
            patches:
              - type: FromCompositeFieldPath
                fromFieldPath: spec.region
                toFieldPath: spec.forProvider.region
              - type: FromCompositeFieldPath
                fromFieldPath: spec.retentionDays
                toFieldPath: spec.forProvider.rule[0].expiration[0].days
              - type: CombineFromComposite
                combine:
                  variables:
                    - fromFieldPath: metadata.name
                    - fromFieldPath: spec.team
                  strategy: string
                  string:
                    fmt: "%s-%s"
                toFieldPath: spec.forProvider.bucket
                transforms:
                  - type: string
                    string:
                      type: Convert
                      convert: ToLower
    # Step 3: ready when the providers say so.
    - step: auto-ready
      functionRef:
        name: function-auto-ready
`,z=`apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata:
  name: analytics-b7x2k
  annotations:
    crossplane.io/composition-resource-name: bucket
status:
  atProvider:
    arn: arn:aws:s3:::analytics-b7x2k
  conditions:
    - type: Ready
      status: "True"
      reason: Available
`,U=`apiVersion: storage.example.org/v1alpha1
kind: XBucket
metadata:
  name: analytics
  uid: 6a0c2e4b-1d3f-4a5b-9c7d-8e9f0a1b2c3d
spec:
  region: eu-west-1
  team: data
  retentionDays: 30
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
`,K=`# Per-cluster settings, as an EnvironmentConfig selected for this Composition.
apiVersion: apiextensions.crossplane.io/v1alpha1
kind: EnvironmentConfig
metadata:
  name: production
data:
  environment: production
  costCenter: cc-4711
  backup:
    retentionDays: 14
`,W=`# What the cluster holds after the first reconcile: the composed resources as their
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
`,H=`# A database for the orders service. \`deletionProtection: yes\` is a YAML 1.1 boolean,
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
`,J=`# The platform team's PostgreSQL API: developers ask for a database by size and region.
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
`,Y=`# Four Compositions, one per XR type: the XPlatform's composes an XNetwork and an XCluster, which
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
`,$=`# What the simulated providers write between iterations (xprender's Simulation document): every
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
`,ee=`# A platform for the payments team: a network (a VPC and a set of subnets, themselves an XR) and
# a Kubernetes cluster (an XR too), each composed by its own Composition.
apiVersion: platform.example.org/v1alpha1
kind: XPlatform
metadata:
  name: payments
spec:
  region: eu-west-1
  size: large
`,ne=2e3,h=16,te=256;class ae{constructor(e,n,{overrunMs:s=ne,setTimer:t=setTimeout,clearTimer:o=clearTimeout}={}){this.spawn=e,this.onAnswer=n,this.overrunMs=s,this.setTimer=(r,i)=>t(r,i),this.clearTimer=r=>o(r),this.nextId=1,this.inFlight=null,this.pending=null,this.replaced=0,this.inline=null,this.costs=[1/0],this.last=null,this.scheduled=!1,this.worker=this.start()}setInline(e,n=null){if(n)try{e(0,n)}catch{return}this.inline=e}start(){const e=this.spawn();return e.onmessage=n=>{n.data?.phases&&(n.data.phases.receivedAt=performance.timeOrigin+performance.now()),this.answered(e,n.data)},e}submit(e){if(this.pending=e,!this.inFlight){if(!this.goesInline(e))return this.sendPending();this.scheduled||(this.scheduled=!0,queueMicrotask(()=>this.renderInline()))}}goesInline(e){const n=this.last,[s,t=1/0]=this.costs;if(!this.inline||!n||Math.min(s,t)>=h||t>=4*h||e.semantics!==n.semantics||JSON.stringify(e.iterate)!==JSON.stringify(n.iterate))return!1;const o=e.texts??{},r=n.texts??{};let i=0;for(const u of new Set([...Object.keys(o),...Object.keys(r)]))i+=Math.abs((o[u]??"").length-(r[u]??"").length);return i<te}renderInline(){this.scheduled=!1;const e=this.pending;if(e===null||this.inFlight)return;this.pending=null;const n=this.nextId++;let s;try{s=this.inline(n,e)}catch{return this.inline=null,this.pending=e,this.sendPending()}const{message:t,built:o,unused:r}=s;this.noteCost(e,t),t.phases&&(t.phases.receivedAt=performance.timeOrigin+performance.now(),t.phases.inline=!0),this.onAnswer(t),o?.request&&this.worker.postMessage({id:n,validate:e,unused:r})}noteCost(e,n){const s=n.phases;this.costs=[this.costs.at(-1),s?s.parse+s.render+s.present+s.graphData:1/0],this.last=e}sendPending(){const e=this.pending;if(this.pending=null,e===null)return;const n=this.nextId++,s=this.setTimer(()=>this.overrun(n),this.overrunMs);this.inFlight={id:n,timer:s,request:e},this.worker.postMessage({id:n,request:e})}answered(e,n){if("validation"in n){e===this.worker&&this.onAnswer(n);return}e!==this.worker||!this.inFlight||n.id!==this.inFlight.id||(this.clearTimer(this.inFlight.timer),this.noteCost(this.inFlight.request,n),this.inFlight=null,this.onAnswer(n),this.sendPending())}overrun(e){!this.inFlight||this.inFlight.id!==e||(this.inFlight=null,this.costs=[1/0,1/0],this.worker.terminate(),this.replaced++,this.worker=this.start(),this.onAnswer({id:e,error:{kind:"Timeout",message:`render did not finish within ${this.overrunMs} ms; it was stopped`,context:{}}}),this.sendPending())}}const p=g(Object.assign({"../../examples/gallery/aws-network/composition.yaml":x,"../../examples/gallery/aws-network/xr.yaml":_,"../../examples/gallery/aws-network/xrd.yaml":V,"../../examples/gallery/gcp-network/composition.yaml":R,"../../examples/gallery/gcp-network/xr.yaml":T,"../../examples/gallery/gcp-network/xrd.yaml":I,"../../examples/nested-platform/composition.yaml":N,"../../examples/nested-platform/observed.yaml":A,"../../examples/nested-platform/simulation.yaml":X,"../../examples/nested-platform/xr.yaml":E,"../../examples/nested-platform/xrd.yaml":D,"../../examples/object-storage/composition.yaml":B,"../../examples/object-storage/observed.yaml":L,"../../examples/object-storage/xr.yaml":O,"../../examples/pipeline-network/composition.yaml":j,"../../examples/pipeline-network/environment.yaml":G,"../../examples/pipeline-network/observed.yaml":q,"../../examples/pipeline-network/xr.yaml":M,"../../examples/pipeline-steps/composition.yaml":Z,"../../examples/pipeline-steps/observed.yaml":z,"../../examples/pipeline-steps/xr.yaml":U,"../../examples/platform-db/composition.yaml":Q,"../../examples/platform-db/environment.yaml":K,"../../examples/platform-db/observed.yaml":W,"../../examples/platform-db/xr.yaml":H,"../../examples/platform-db/xrd.yaml":J,"../../examples/platform-tree/composition.yaml":Y,"../../examples/platform-tree/simulation.yaml":$,"../../examples/platform-tree/xr.yaml":ee})),oe=window.__xprender={renders:[],graph:[],answers:[],validations:[],firstOutputAt:null,firstValidationAt:null,replaced:0};let d=null,l=[],f;const se=new Promise(a=>f=a),b=new ae(()=>new Worker(new URL(""+new URL("worker-DomWDbqq.js",import.meta.url).href,import.meta.url),{type:"module"}),a=>{if(d)return d(a);l.push(a),f(),a.yaml&&l.length===1&&(P("out-resources",a.yaml.resources),requestAnimationFrame(()=>oe.firstOutputAt??=performance.now()))});function P(a,e){const n=document.createElement("pre");n.className="plain",n.textContent=e,document.getElementById(a).replaceChildren(n)}async function re(){const a=await w(location.hash);if(a)return{state:a,example:Object.hasOwn(p,a.example)?a.example:""};try{const n=JSON.parse(localStorage.getItem(S)??"null");if(n&&typeof n.xr=="string")return{state:n,example:""}}catch{}const e=C(p);return{state:e?p[e]:{xr:"",composition:"",observed:""},example:e??""}}const{state:c,example:ie}=await re(),{semantics:v,iterate:y}=F(c),m={xr:c.xr??"",composition:c.composition??"",observed:c.observed??""};b.submit({texts:m,semantics:v,iterate:y});for(const a of Object.keys(m))P(a,m[a]);await Promise.race([se,new Promise(a=>setTimeout(a,1e3))]);const{start:pe}=await k(async()=>{const{start:a}=await import("./main-yHzGwYPo.js").then(e=>e.m);return{start:a}},__vite__mapDeps([0,1]),import.meta.url);d=pe({renderer:b,examples:p,texts:m,semantics:v,iterate:y,example:ie});for(const a of l)d(a);l=[];
