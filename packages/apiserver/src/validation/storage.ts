// PersistentVolume, PersistentVolumeClaim (pkg/apis/core/validation) and the storage.k8s.io kinds
// (pkg/apis/storage/validation), with Kubernetes' field paths and messages.
import { tryParseQuantity, QUANTITY_FORMAT_MESSAGE } from '@kemu/api';
import type { KubeObject, StatusCause } from '@kemu/api';
import { asArray, asRecord, child, fieldErrors, index, isRecord, jsonEqual, key } from './field.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { isDNS1123Subdomain, isQualifiedName } from '@kemu/api';
import { validateLabelSelector } from './apps.ts';
import { structDiff, type GoField } from './struct-diff.ts';

type Obj = Record<string, unknown>;

const ACCESS_MODES = ['ReadOnlyMany', 'ReadWriteMany', 'ReadWriteOnce', 'ReadWriteOncePod'];
const PV_RECLAIM_POLICIES = ['Delete', 'Recycle', 'Retain'];
const SC_RECLAIM_POLICIES = ['Delete', 'Retain'];
const VOLUME_MODES = ['Block', 'Filesystem'];
const BINDING_MODES = ['Immediate', 'WaitForFirstConsumer'];
/** PersistentVolumeSource's fields besides the ones kemu describes: each counts as a volume type. */
const PV_SOURCES = [
  'gcePersistentDisk', 'awsElasticBlockStore', 'hostPath', 'glusterfs', 'nfs', 'rbd', 'iscsi', 'cinder', 'cephfs', 'fc', 'flocker',
  'flexVolume', 'azureFile', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'portworxVolume', 'scaleIO', 'local',
  'storageos', 'csi',
];

/** core.PersistentVolumeSource's fields (Go name, type), in PV_SOURCES order, for the immutability diff. */
const PV_SOURCE_FIELDS: GoField[] = [
  ['GCEPersistentDisk', 'GCEPersistentDiskVolumeSource'], ['AWSElasticBlockStore', 'AWSElasticBlockStoreVolumeSource'], ['HostPath', 'HostPathVolumeSource'],
  ['Glusterfs', 'GlusterfsPersistentVolumeSource'], ['NFS', 'NFSVolumeSource'], ['RBD', 'RBDPersistentVolumeSource'], ['ISCSI', 'ISCSIPersistentVolumeSource'],
  ['Cinder', 'CinderPersistentVolumeSource'], ['CephFS', 'CephFSPersistentVolumeSource'], ['FC', 'FCVolumeSource'], ['Flocker', 'FlockerVolumeSource'],
  ['FlexVolume', 'FlexPersistentVolumeSource'], ['AzureFile', 'AzureFilePersistentVolumeSource'], ['VsphereVolume', 'VsphereVirtualDiskVolumeSource'],
  ['Quobyte', 'QuobyteVolumeSource'], ['AzureDisk', 'AzureDiskVolumeSource'], ['PhotonPersistentDisk', 'PhotonPersistentDiskVolumeSource'],
  ['PortworxVolume', 'PortworxVolumeSource'], ['ScaleIO', 'ScaleIOPersistentVolumeSource'], ['Local', 'LocalVolumeSource'],
  ['StorageOS', 'StorageOSPersistentVolumeSource'], ['CSI', 'CSIPersistentVolumeSource'],
].map(([name, type], i) => ({ name: name ?? '', json: PV_SOURCES[i] ?? '', kind: 'ptr', type: `core.${type ?? ''}` }));

/** core.PersistentVolumeClaimSpec's fields, in Go order. */
const PVC_SPEC_FIELDS: GoField[] = [
  { name: 'AccessModes', json: 'accessModes', kind: 'slice', type: '[]core.PersistentVolumeAccessMode' },
  { name: 'Selector', json: 'selector', kind: 'ptr', type: 'v1.LabelSelector' },
  { name: 'Resources', json: 'resources', kind: 'struct', type: 'core.VolumeResourceRequirements' },
  { name: 'VolumeName', json: 'volumeName', kind: 'string' },
  { name: 'StorageClassName', json: 'storageClassName', kind: 'ptr' },
  { name: 'VolumeMode', json: 'volumeMode', kind: 'ptr' },
  { name: 'DataSource', json: 'dataSource', kind: 'ptr', type: 'core.TypedLocalObjectReference' },
  { name: 'DataSourceRef', json: 'dataSourceRef', kind: 'ptr', type: 'core.TypedObjectReference' },
  { name: 'VolumeAttributesClassName', json: 'volumeAttributesClassName', kind: 'ptr' },
];

const spec = (o: KubeObject): Obj => asRecord((o as Obj).spec) ?? {};
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

function validateAccessModes(modes: unknown, path: string, requiredDetail: string | undefined, out: StatusCause[]): void {
  const list = asArray(modes) ?? [];
  if (list.length === 0) {
    out.push(fieldErrors.required(path, requiredDetail));
    return;
  }
  let rwop = false;
  for (const m of list) {
    if (!ACCESS_MODES.includes(m as string)) out.push(fieldErrors.notSupported(path, m, ACCESS_MODES));
    if (m === 'ReadWriteOncePod') rwop = true;
  }
  if (rwop && list.length > 1) out.push(fieldErrors.forbidden(path, 'may not use ReadWriteOncePod with other access modes'));
}

/** ValidateClassName: a DNS subdomain. */
function validateClassName(v: unknown, path: string, out: StatusCause[]): void {
  if (typeof v !== 'string' || v === '') return;
  for (const m of isDNS1123Subdomain(v)) out.push(fieldErrors.invalid(path, v, m));
}

function validateQuantity(q: unknown, path: string, positive: boolean, out: StatusCause[]): void {
  const v = tryParseQuantity(q);
  if (v === undefined) out.push(fieldErrors.invalid(path, q, QUANTITY_FORMAT_MESSAGE));
  else if (positive && v <= 0) out.push(fieldErrors.invalid(path, q, 'must be greater than zero'));
  else if (v < 0) out.push(fieldErrors.invalid(path, q, 'must be greater than or equal to 0'));
}

function validatePathNoBacksteps(p: string, path: string, out: StatusCause[]): void {
  if (p.split('/').includes('..')) out.push(fieldErrors.invalid(path, p, "must not contain '..'"));
}

function validateNodeSelectorRequired(affinity: unknown, path: string, out: StatusCause[]): boolean {
  const a = asRecord(affinity);
  if (!a) return false;
  const req = asRecord(a.required);
  if (!req) return false;
  const terms = asArray(req.nodeSelectorTerms) ?? [];
  if (terms.length === 0) out.push(fieldErrors.required(child(path, 'required', 'nodeSelectorTerms'), 'must have at least one node selector term'));
  return true;
}

export function validatePersistentVolumeSpec(s: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  validateAccessModes(s.accessModes, child(path, 'accessModes'), undefined, out);
  const capacity = asRecord(s.capacity);
  if (!capacity || Object.keys(capacity).length === 0) out.push(fieldErrors.required(child(path, 'capacity')));
  else {
    if (!('storage' in capacity) || Object.keys(capacity).length > 1)
      out.push(fieldErrors.notSupported(child(path, 'capacity'), capacity, ['storage']));
    for (const [k, q] of Object.entries(capacity)) validateQuantity(q, key(child(path, 'capacity'), k), false, out);
  }
  const policy = str(s.persistentVolumeReclaimPolicy);
  if (policy !== '' && !PV_RECLAIM_POLICIES.includes(policy))
    out.push(fieldErrors.notSupported(child(path, 'persistentVolumeReclaimPolicy'), policy, PV_RECLAIM_POLICIES));
  validateClassName(s.storageClassName, child(path, 'storageClassName'), out);
  if (s.volumeMode !== undefined && s.volumeMode !== null && !VOLUME_MODES.includes(s.volumeMode as string))
    out.push(fieldErrors.notSupported(child(path, 'volumeMode'), s.volumeMode, VOLUME_MODES));
  const hasAffinity = validateNodeSelectorRequired(s.nodeAffinity, child(path, 'nodeAffinity'), out);

  const sources = PV_SOURCES.filter((k) => s[k] !== undefined && s[k] !== null);
  if (sources.length === 0) out.push(fieldErrors.required(path, 'must specify a volume type'));
  for (const extra of sources.slice(1)) out.push(fieldErrors.forbidden(child(path, extra), 'may not specify more than 1 volume type'));
  const hostPath = asRecord(s.hostPath);
  if (hostPath) {
    const p = str(hostPath.path);
    if (p === '') out.push(fieldErrors.required(child(path, 'hostPath', 'path')));
    else validatePathNoBacksteps(p, child(path, 'hostPath', 'path'), out);
    if (policy === 'Recycle' && p === '/')
      out.push(fieldErrors.forbidden(child(path, 'persistentVolumeReclaimPolicy'), "may not be 'recycle' for a hostPath mount of '/'"));
  }
  const local = asRecord(s.local);
  if (local) {
    if (str(local.path) === '') out.push(fieldErrors.required(child(path, 'local', 'path')));
    if (!hasAffinity) out.push(fieldErrors.required(child(path, 'nodeAffinity'), 'Local volume requires node affinity'));
  }
  const nfs = asRecord(s.nfs);
  if (nfs) {
    if (str(nfs.server) === '') out.push(fieldErrors.required(child(path, 'nfs', 'server')));
    if (str(nfs.path) === '') out.push(fieldErrors.required(child(path, 'nfs', 'path')));
  }
  const csi = asRecord(s.csi);
  if (csi) {
    if (str(csi.driver) === '') out.push(fieldErrors.required(child(path, 'csi', 'driver')));
    if (str(csi.volumeHandle) === '') out.push(fieldErrors.required(child(path, 'csi', 'volumeHandle')));
  }
  return out;
}

export function validatePersistentVolume(pv: KubeObject): StatusCause[] {
  return [...validateObjectMeta(pv.metadata, { namespaced: false }), ...validatePersistentVolumeSpec(spec(pv), 'spec')];
}

/** The source fields of a PV spec (PersistentVolumeSource, inlined). */
function sourceOf(s: Obj): Obj {
  return Object.fromEntries(PV_SOURCES.filter((k) => s[k] !== undefined && s[k] !== null).map((k) => [k, s[k]]));
}

export function validatePersistentVolumeUpdate(pv: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(pv.metadata, old.metadata, { namespaced: false });
  const s = spec(pv);
  const o = spec(old);
  out.push(...validatePersistentVolumeSpec(s, 'spec'));
  if (!jsonEqual(sourceOf(s), sourceOf(o)))
    out.push(
      fieldErrors.forbidden('spec.persistentvolumesource', `spec.persistentvolumesource is immutable after creation\n${structDiff('core.PersistentVolumeSource', PV_SOURCE_FIELDS, o, s)}`),
    );
  if (!jsonEqual(s.volumeMode, o.volumeMode)) out.push(fieldErrors.immutable('volumeMode', s.volumeMode));
  if (o.nodeAffinity !== undefined && o.nodeAffinity !== null && !jsonEqual(s.nodeAffinity, o.nodeAffinity))
    out.push(fieldErrors.immutable('nodeAffinity', s.nodeAffinity));
  return out;
}

export function validatePersistentVolumeStatusUpdate(pv: KubeObject, old: KubeObject): StatusCause[] {
  return validateObjectMetaUpdate(pv.metadata, old.metadata, { namespaced: false });
}

export function validatePersistentVolumeClaimSpec(s: Obj, path: string): StatusCause[] {
  const out: StatusCause[] = [];
  validateAccessModes(s.accessModes, child(path, 'accessModes'), 'at least 1 access mode is required', out);
  if (s.selector !== undefined && s.selector !== null) out.push(...validateLabelSelector(s.selector, child(path, 'selector')));
  const requests = asRecord(asRecord(s.resources)?.requests);
  const storagePath = key(child(path, 'resources'), 'storage');
  if (!requests || !('storage' in requests)) out.push(fieldErrors.required(storagePath));
  else validateQuantity(requests.storage, storagePath, true, out);
  if (typeof s.storageClassName === 'string') validateClassName(s.storageClassName, child(path, 'storageClassName'), out);
  if (s.volumeMode !== undefined && s.volumeMode !== null && !VOLUME_MODES.includes(s.volumeMode as string))
    out.push(fieldErrors.notSupported(child(path, 'volumeMode'), s.volumeMode, VOLUME_MODES));
  for (const f of ['dataSource', 'dataSourceRef']) {
    const ref = asRecord(s[f]);
    if (!ref) continue;
    if (str(ref.name) === '') out.push(fieldErrors.required(child(path, f, 'name')));
    if (str(ref.kind) === '') out.push(fieldErrors.required(child(path, f, 'kind')));
  }
  return out;
}

export function validatePersistentVolumeClaim(pvc: KubeObject): StatusCause[] {
  return [...validateObjectMeta(pvc.metadata, { namespaced: true }), ...validatePersistentVolumeClaimSpec(spec(pvc), 'spec')];
}

export function validatePersistentVolumeClaimUpdate(pvc: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(pvc.metadata, old.metadata, { namespaced: true });
  const s = structuredClone(spec(pvc));
  const o = structuredClone(spec(old));
  out.push(...validatePersistentVolumeClaimSpec(s, 'spec'));
  // volumeName may be set once (binding); storageClassName may be set when unset (retroactive default class).
  if (str(o.volumeName) === '') o.volumeName = s.volumeName;
  if (o.storageClassName === undefined || o.storageClassName === null) o.storageClassName = s.storageClassName;
  const bound = asRecord((old as Obj).status)?.phase === 'Bound';
  if (bound) {
    // Only bound claims may change their requests (expansion), never below the bound capacity.
    const newSize = tryParseQuantity(asRecord(asRecord(s.resources)?.requests)?.storage);
    const oldSize = tryParseQuantity(asRecord(asRecord(o.resources)?.requests)?.storage);
    const capacity = tryParseQuantity(asRecord(asRecord((old as Obj).status)?.capacity)?.storage);
    o.resources = s.resources;
    o.volumeAttributesClassName = s.volumeAttributesClassName;
    if (newSize !== undefined && oldSize !== undefined && newSize < oldSize && (capacity === undefined || newSize < capacity))
      out.push(fieldErrors.forbidden('spec.resources.requests.storage', 'field can not be less than status.capacity'));
  }
  if (!jsonEqual(s, o))
    out.push(
      fieldErrors.forbidden(
        'spec',
        `spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n${structDiff('core.PersistentVolumeClaimSpec', PVC_SPEC_FIELDS, o, s)}`,
      ),
    );
  return out;
}

export function validatePersistentVolumeClaimStatusUpdate(pvc: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(pvc.metadata, old.metadata, { namespaced: true });
  const cap = asRecord(asRecord((pvc as Obj).status)?.capacity);
  for (const [k, q] of Object.entries(cap ?? {})) validateQuantity(q, key('status.capacity', k), false, out);
  return out;
}

function validateProvisioner(v: unknown, out: StatusCause[]): void {
  const p = str(v);
  if (p === '') {
    out.push(fieldErrors.required('provisioner', ''));
    return;
  }
  for (const m of isQualifiedName(p.toLowerCase())) out.push(fieldErrors.invalid('provisioner', p, m));
}

function validateAllowedTopologies(v: unknown, path: string, out: StatusCause[]): void {
  (asArray(v) ?? []).forEach((term, i) => {
    const exprs = asArray(asRecord(term)?.matchLabelExpressions) ?? [];
    const tp = index(path, i);
    if (exprs.length === 0) out.push(fieldErrors.required(tp, 'must have at least one label expression'));
    exprs.forEach((e, j) => {
      const r = asRecord(e) ?? {};
      const ep = index(child(tp, 'matchLabelExpressions'), j);
      for (const m of isQualifiedName(str(r.key))) out.push(fieldErrors.invalid(child(ep, 'key'), r.key, m));
      if ((asArray(r.values) ?? []).length === 0) out.push(fieldErrors.required(child(ep, 'values'), 'must specify as least one value'));
    });
  });
}

export function validateStorageClass(sc: KubeObject): StatusCause[] {
  const o = sc as Obj;
  const out = validateObjectMeta(sc.metadata, { namespaced: false });
  validateProvisioner(o.provisioner, out);
  const params = asRecord(o.parameters) ?? {};
  if (Object.keys(params).length > 512) out.push(fieldErrors.tooLong('parameters', 512));
  for (const k of Object.keys(params)) if (k === '') out.push(fieldErrors.invalid('parameters', k, 'field can not be empty.'));
  if (typeof o.reclaimPolicy === 'string' && o.reclaimPolicy !== '' && !SC_RECLAIM_POLICIES.includes(o.reclaimPolicy))
    out.push(fieldErrors.notSupported('reclaimPolicy', o.reclaimPolicy, SC_RECLAIM_POLICIES));
  if (o.volumeBindingMode === undefined || o.volumeBindingMode === null) out.push(fieldErrors.required('volumeBindingMode'));
  else if (!BINDING_MODES.includes(o.volumeBindingMode as string)) out.push(fieldErrors.notSupported('volumeBindingMode', o.volumeBindingMode, BINDING_MODES));
  validateAllowedTopologies(o.allowedTopologies, 'allowedTopologies', out);
  return out;
}

export function validateStorageClassUpdate(sc: KubeObject, old: KubeObject): StatusCause[] {
  const n = sc as Obj;
  const o = old as Obj;
  const out = validateObjectMetaUpdate(sc.metadata, old.metadata, { namespaced: false });
  out.push(...validateStorageClass(sc).filter((c) => !c.field?.startsWith('metadata')));
  if (!jsonEqual(n.parameters ?? {}, o.parameters ?? {})) out.push(fieldErrors.forbidden('parameters', 'updates to parameters are forbidden.'));
  if (n.provisioner !== o.provisioner) out.push(fieldErrors.forbidden('provisioner', 'updates to provisioner are forbidden.'));
  if (n.reclaimPolicy !== o.reclaimPolicy) out.push(fieldErrors.forbidden('reclaimPolicy', 'updates to reclaimPolicy are forbidden.'));
  if (n.volumeBindingMode !== o.volumeBindingMode) out.push(fieldErrors.immutable('volumeBindingMode', n.volumeBindingMode));
  return out;
}

/** CSI driver names: at most 63 characters, DNS-1123 subdomain form (ValidateCSIDriverName). */
function validateCSIDriverName(name: unknown, path: string, out: StatusCause[]): void {
  const n = str(name);
  if (n === '') {
    out.push(fieldErrors.required(path, n));
    return;
  }
  if (n.length > 63) out.push(fieldErrors.tooLong(path, 63));
  for (const m of isDNS1123Subdomain(n.toLowerCase())) out.push(fieldErrors.invalid(path, n, m));
}

export function validateCSIDriver(d: KubeObject): StatusCause[] {
  const out = validateObjectMeta(d.metadata, { namespaced: false, nameFn: () => [] });
  validateCSIDriverName(d.metadata?.name, 'metadata.name', out);
  const s = spec(d);
  for (const f of ['attachRequired', 'podInfoOnMount', 'storageCapacity', 'requiresRepublish', 'seLinuxMount'])
    if (s[f] === undefined || s[f] === null) out.push(fieldErrors.required(child('spec', f), ''));
  const policies = ['File', 'None', 'ReadWriteOnceWithFSType'];
  if (s.fsGroupPolicy !== undefined && !policies.includes(s.fsGroupPolicy as string))
    out.push(fieldErrors.notSupported('spec.fsGroupPolicy', s.fsGroupPolicy, policies));
  const modes = ['Ephemeral', 'Persistent'];
  for (const m of asArray(s.volumeLifecycleModes) ?? []) if (!modes.includes(m as string)) out.push(fieldErrors.notSupported('spec.volumeLifecycleModes', m, modes));
  return out;
}

export function validateCSIDriverUpdate(d: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(d.metadata, old.metadata, { namespaced: false });
  out.push(...validateCSIDriver(d).filter((c) => !c.field?.startsWith('metadata')));
  const s = spec(d);
  const o = spec(old);
  for (const f of ['attachRequired', 'podInfoOnMount', 'fsGroupPolicy', 'volumeLifecycleModes'])
    if (!jsonEqual(s[f], o[f])) out.push(fieldErrors.immutable(child('spec', f), s[f]));
  return out;
}

export function validateCSINode(n: KubeObject): StatusCause[] {
  const out = validateObjectMeta(n.metadata, { namespaced: false });
  const seen = new Set<string>();
  (asArray(spec(n).drivers) ?? []).forEach((d, i) => {
    const r = asRecord(d) ?? {};
    const p = index('spec.drivers', i);
    validateCSIDriverName(r.name, child(p, 'name'), out);
    if (seen.has(str(r.name))) out.push(fieldErrors.duplicate(child(p, 'name'), r.name));
    seen.add(str(r.name));
    if (str(r.nodeID) === '') out.push(fieldErrors.required(child(p, 'nodeID'), 'nodeID cannot be empty'));
    const count = asRecord(r.allocatable)?.count;
    if (typeof count === 'number' && count < 0) out.push(fieldErrors.invalid(child(p, 'allocatable', 'count'), count, 'must be greater than or equal to 0'));
  });
  return out;
}

export function validateCSINodeUpdate(n: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(n.metadata, old.metadata, { namespaced: false });
  out.push(...validateCSINode(n).filter((c) => !c.field?.startsWith('metadata')));
  // A driver's entry, once registered, changes only in its allocatable (ValidateCSINodeUpdate).
  const oldDrivers = new Map((asArray(spec(old).drivers) ?? []).map((d) => [str(asRecord(d)?.name), asRecord(d) ?? {}]));
  (asArray(spec(n).drivers) ?? []).forEach((d, i) => {
    const r = asRecord(d) ?? {};
    const prev = oldDrivers.get(str(r.name));
    if (!prev) return;
    const p = index('spec.drivers', i);
    if (r.nodeID !== prev.nodeID) out.push(fieldErrors.immutable(child(p, 'nodeID'), r.nodeID));
    if (!jsonEqual(r.topologyKeys ?? [], prev.topologyKeys ?? [])) out.push(fieldErrors.immutable(child(p, 'topologyKeys'), r.topologyKeys));
  });
  return out;
}

export function validateVolumeAttachment(va: KubeObject): StatusCause[] {
  const out = validateObjectMeta(va.metadata, { namespaced: false });
  const s = spec(va);
  validateCSIDriverName(s.attacher, 'spec.attacher', out);
  const source = asRecord(s.source) ?? {};
  const byName = typeof source.persistentVolumeName === 'string';
  const inline = isRecord(source.inlineVolumeSpec);
  if (byName === inline) out.push(fieldErrors.required('spec.source', 'must specify exactly one of inlineVolumeSpec and persistentVolumeName'));
  else if (byName && source.persistentVolumeName === '') out.push(fieldErrors.required('spec.source.persistentVolumeName', 'must specify non empty persistentVolumeName'));
  if (str(s.nodeName) === '') out.push(fieldErrors.required('spec.nodeName', ''));
  return out;
}

export function validateVolumeAttachmentUpdate(va: KubeObject, old: KubeObject): StatusCause[] {
  const out = validateObjectMetaUpdate(va.metadata, old.metadata, { namespaced: false });
  out.push(...validateVolumeAttachment(va).filter((c) => !c.field?.startsWith('metadata')));
  if (!jsonEqual(spec(va), spec(old))) out.push(fieldErrors.immutable('spec', spec(va)));
  return out;
}
