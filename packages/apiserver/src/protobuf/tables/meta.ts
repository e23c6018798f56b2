// apimachinery types: meta/v1 (ObjectMeta, LabelSelector, FieldSelectorRequirement, Time, MicroTime, DeleteOptions…),
// resource.Quantity and intstr.IntOrString, each with Go's JSON form.
import { formatTime } from '@kemu/api';
import { boolPtr, bytes, i32, i64, i64Ptr, list, mapOf, message, msg, str, strPtr, strs } from '../schema.ts';

/** seconds + nanos as RFC 3339; the zero Time is omitted (Go writes null, which reads back as absent). */
function rfc3339(d: Record<string, unknown>, micro: boolean): string | undefined {
  const seconds = typeof d.seconds === 'number' ? d.seconds : 0;
  const nanos = typeof d.nanos === 'number' ? d.nanos : 0;
  if (seconds === 0 && nanos === 0) return undefined;
  const base = formatTime(seconds * 1000);
  if (Number.isNaN(Date.parse(base))) return undefined;
  if (!micro) return base;
  return base.replace(/Z$/, `.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`);
}

export const Time = message({ 1: i64('seconds'), 2: i32('nanos') }, (d) => rfc3339(d, false));
export const MicroTime = message({ 1: i64('seconds'), 2: i32('nanos') }, (d) => rfc3339(d, true));

/** resource.Quantity {1 string} is its canonical string. */
export const Quantity = message({ 1: str('string') }, (d) => (typeof d.string === 'string' && d.string !== '' ? d.string : '0'));

/** intstr.IntOrString {1 type, 2 intVal, 3 strVal}: type 0 is the int, 1 the string. */
export const IntOrString = message({ 1: i64('type'), 2: i32('intVal'), 3: str('strVal') }, (d) =>
  d.type === 1 ? (typeof d.strVal === 'string' ? d.strVal : '') : typeof d.intVal === 'number' ? d.intVal : 0,
);

/** FieldsV1 {1 Raw} holds the JSON of a managedFields set. */
export const FieldsV1 = message({ 1: bytes('raw') }, (d) => {
  if (typeof d.raw !== 'string' || d.raw === '') return {};
  try {
    return JSON.parse(Buffer.from(d.raw, 'base64').toString('utf8')) as unknown;
  } catch {
    return {};
  }
});

export const OwnerReference = message({
  5: str('apiVersion'),
  1: str('kind'),
  3: str('name'),
  4: str('uid'),
  6: boolPtr('controller'),
  7: boolPtr('blockOwnerDeletion'),
});

export const ManagedFieldsEntry = message({
  1: str('manager'),
  2: str('operation'),
  3: str('apiVersion'),
  4: msg('time', () => Time),
  6: str('fieldsType'),
  7: msg('fieldsV1', () => FieldsV1),
  8: str('subresource'),
});

export const ObjectMeta = message({
  1: str('name'),
  2: str('generateName'),
  3: str('namespace'),
  4: str('selfLink'),
  5: str('uid'),
  6: str('resourceVersion'),
  7: i64('generation'),
  8: msg('creationTimestamp', () => Time),
  9: msg('deletionTimestamp', () => Time),
  10: i64Ptr('deletionGracePeriodSeconds'),
  11: mapOf('labels', 'string'),
  12: mapOf('annotations', 'string'),
  13: list('ownerReferences', () => OwnerReference),
  14: strs('finalizers'),
  17: list('managedFields', () => ManagedFieldsEntry),
});

export const LabelSelectorRequirement = message({ 1: str('key'), 2: str('operator'), 3: strs('values') });

/** metav1.FieldSelectorRequirement (SubjectAccessReview field selectors). */
export const FieldSelectorRequirement = message({ 1: str('key'), 2: str('operator'), 3: strs('values') });

export const LabelSelector = message({
  1: mapOf('matchLabels', 'string'),
  2: list('matchExpressions', () => LabelSelectorRequirement),
});

export const Preconditions = message({ 1: strPtr('uid'), 2: strPtr('resourceVersion') });

export const DeleteOptions = message({
  1: i64Ptr('gracePeriodSeconds'),
  2: msg('preconditions', () => Preconditions),
  3: boolPtr('orphanDependents'),
  4: strPtr('propagationPolicy'),
  5: strs('dryRun'),
  6: boolPtr('ignoreStoreReadErrorWithClusterBreakingPotential'),
});
