// apimachinery types: meta/v1 (ObjectMeta, LabelSelector, FieldSelectorRequirement, Time, MicroTime, DeleteOptions…),
// resource.Quantity and intstr.IntOrString. Numbers from apimachinery's generated.proto.
import { boolPtr, byKey, bytes, i32, i64, i64Ptr, list, mapOf, msg, setList, str, strPtr, strs, struct } from '../build.ts';

const META = 'io.k8s.apimachinery.pkg.apis.meta.v1.';

export const Time = struct(`${META}Time`, 'A point in time, written as an RFC 3339 timestamp with seconds (2024-05-01T10:00:00Z).', { 1: i64('seconds'), 2: i32('nanos') }, { format: 'date-time' });
export const MicroTime = struct(`${META}MicroTime`, 'A point in time with microseconds, written as RFC 3339 (2024-05-01T10:00:00.123456Z).', { 1: i64('seconds'), 2: i32('nanos') }, { format: 'micro-time' });

export const Quantity = struct(
  'io.k8s.apimachinery.pkg.api.resource.Quantity',
  'An amount written with an optional suffix: 250m or 0.5 CPU, 128Mi or 1G of memory.',
  { 1: str('string') },
  { format: 'quantity' },
);

export const IntOrString = struct('io.k8s.apimachinery.pkg.util.intstr.IntOrString', 'Either a whole number or a string, such as a port number or a port name, or 25%.', { 1: i64('type'), 2: i32('intVal'), 3: str('strVal') }, { format: 'int-or-string' });

export const FieldsV1 = struct(`${META}FieldsV1`, 'A set of field paths in the JSON form server-side apply writes (f:spec, k:{"name":"web"}).', { 1: bytes('raw') }, { format: 'fields-v1' });

export const OwnerReference = struct(
  `${META}OwnerReference`,
  'Names an object this one belongs to; the garbage collector deletes this object when its owners are gone.',
  {
    5: str('apiVersion', 'API version of the owner.'),
    1: str('kind', 'Kind of the owner.'),
    3: str('name', 'Name of the owner.'),
    4: str('uid', 'UID of the owner; the reference holds only while it matches.'),
    6: boolPtr('controller', 'True for the one owner that manages this object (at most one).'),
    7: boolPtr('blockOwnerDeletion', 'With foreground deletion, the owner is not removed until this object is gone.'),
  },
  { atomic: true },
);

export const ManagedFieldsEntry = struct(`${META}ManagedFieldsEntry`, 'Which fields one manager set, and how (server-side apply bookkeeping).', {
  1: str('manager', 'Name of the manager (the field manager or the client user agent).'),
  2: str('operation', 'Apply or Update: how the manager wrote these fields.'),
  3: str('apiVersion', 'API version the fields are expressed in.'),
  4: msg('time', () => Time, 'When the manager last changed these fields.'),
  6: str('fieldsType', 'Format of fieldsV1; always FieldsV1.'),
  7: msg('fieldsV1', () => FieldsV1, 'The set of fields this manager owns.'),
  8: str('subresource', 'The subresource written through (status, scale), empty for the object itself.'),
});

export const ObjectMeta = struct(`${META}ObjectMeta`, 'Standard metadata every persisted object has: name, namespace, labels, owners, versions.', {
  1: str('name', 'Unique name within the namespace (or the cluster, for cluster-scoped kinds); cannot be changed.'),
  2: str('generateName', 'Prefix for a server-generated name, used when name is empty.'),
  3: str('namespace', 'Namespace the object lives in; empty for cluster-scoped kinds.'),
  4: str('selfLink', 'Deprecated and never set.'),
  5: str('uid', 'Unique identifier the server assigns at creation; differs for a re-created object of the same name.'),
  6: str('resourceVersion', 'Opaque version of this object, changed by every write; used for optimistic concurrency and watches.'),
  7: i64('generation', 'Increments on each change of the desired state (spec).'),
  8: msg('creationTimestamp', () => Time, 'When the server created the object.'),
  9: msg('deletionTimestamp', () => Time, 'Set when deletion was requested; the object goes once its finalizers are removed.'),
  10: i64Ptr('deletionGracePeriodSeconds', 'Seconds the object was given to terminate gracefully when deletion was requested.'),
  11: mapOf('labels', 'string', 'Key/value pairs to organize and select objects (label selectors match them).'),
  12: mapOf('annotations', 'string', 'Key/value pairs for tools and people; not used for selection.'),
  13: list('ownerReferences', () => OwnerReference, 'Objects this one depends on; deleting all of them garbage-collects it.', byKey('uid')),
  14: strs('finalizers', 'Names that must be removed before the object is deleted from storage.', setList(true)),
  17: list('managedFields', () => ManagedFieldsEntry, 'Which manager owns which fields (server-side apply); not usually edited by hand.'),
});

export const LabelSelectorRequirement = struct(`${META}LabelSelectorRequirement`, 'One condition on a label: a key, an operator and values.', {
  1: str('key', 'The label key the condition applies to.'),
  2: str('operator', 'In, NotIn, Exists or DoesNotExist.'),
  3: strs('values', 'Values for In and NotIn; empty for Exists and DoesNotExist.'),
});

export const FieldSelectorRequirement = struct(`${META}FieldSelectorRequirement`, 'One condition on a field: a field path, an operator and values.', {
  1: str('key', 'The field path the condition applies to.'),
  2: str('operator', 'In, NotIn, Exists or DoesNotExist.'),
  3: strs('values', 'Values for In and NotIn; empty for Exists and DoesNotExist.'),
});

export const LabelSelector = struct(
  `${META}LabelSelector`,
  'Selects objects by their labels; all conditions must hold, and an empty selector matches everything.',
  {
    1: mapOf('matchLabels', 'string', 'Labels the object must have with exactly these values.'),
    2: list('matchExpressions', () => LabelSelectorRequirement, 'Further conditions on labels, all of which must hold.'),
  },
  { atomic: true },
);

export const Preconditions = struct(`${META}Preconditions`, 'What must still be true of the object for the operation to go ahead.', {
  1: strPtr('uid', 'The object must have this UID.'),
  2: strPtr('resourceVersion', 'The object must be at this resourceVersion.'),
});

export const DeleteOptions = struct(`${META}DeleteOptions`, 'Options for a delete: grace period, preconditions and how dependents are handled.', {
  1: i64Ptr('gracePeriodSeconds', 'Seconds before the object is deleted; 0 deletes at once.'),
  2: msg('preconditions', () => Preconditions, 'Conditions the object must meet to be deleted.'),
  3: boolPtr('orphanDependents', 'Deprecated: use propagationPolicy=Orphan.'),
  4: strPtr('propagationPolicy', 'Orphan, Background or Foreground: what happens to the dependents.'),
  5: strs('dryRun', 'All: check the request without deleting anything.'),
  6: boolPtr('ignoreStoreReadErrorWithClusterBreakingPotential', 'Deletes an object that cannot be read from storage; dangerous.'),
});
