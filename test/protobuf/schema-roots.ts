// The top-level kinds of the apiserver's schema with the protobuf message name kubectl 1.32 registers for
// each, for the tests that hold the schema against those descriptors.
import { DeleteOptions, KINDS, type Struct } from '../../packages/apiserver/src/schema/index.ts';

const PROTO_PACKAGE: Record<string, string> = { '': 'core' };

/** k8s.io/api's protobuf package of a group: the group's first label (rbac.authorization.k8s.io → rbac). */
const protoPackage = (group: string) => PROTO_PACKAGE[group] ?? group.split('.')[0]!;

export const ROOTS: [string, Struct, string][] = [
  // kubectl 1.32 links no apiextensions-apiserver or kube-aggregator types, so it registers no descriptor to
  // hold CRDs and APIServices against.
  ...KINDS.filter((k) => k.group !== 'apiextensions.k8s.io' && k.group !== 'apiregistration.k8s.io').map((k): [string, Struct, string] => {
    // kubectl 1.32's binary registers no certificates/v1 descriptor; v1beta1's CSR has the same fields and numbers.
    const version = k.group === 'certificates.k8s.io' ? 'v1beta1' : k.version;
    return [`${k.group || 'core'}/${k.version} ${k.kind}`, k.struct, `k8s.io.api.${protoPackage(k.group)}.${version}.${k.kind}`];
  }),
  ['DeleteOptions', DeleteOptions, 'k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions'],
];

/** The OpenAPI definition name Kubernetes gives the Go type of a protobuf message. */
export const definitionOf = (protoName: string) => protoName.replace(/^k8s\.io\./, 'io.k8s.').replace('.certificates.v1beta1.', '.certificates.v1.');
