// The kinds whose strategy is defaults + validation only: configmaps, secrets, serviceaccounts, endpoints,
// events (both groups), leases, endpointslices, priorityclasses, bindings, componentstatuses.
import { R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultEndpoints, defaultEndpointSlice, defaultPriorityClass, defaultSecret } from '../defaults/core.ts';
import * as v from '../validation/misc.ts';
import { isRecord } from '../validation/field.ts';

export const configMapStrategy = buildStrategy(R.configmaps, {
  validate: v.validateConfigMap,
  validateUpdate: (o, old) => [...v.validateImmutableData(o, old), ...v.validateConfigMap(o).filter((c) => !c.field?.startsWith('metadata'))],
});

/** stringData is write-only: merged into data (base64) and dropped, as the Secret conversion does. */
function foldStringData(s: KubeObject): void {
  if (!isRecord(s.stringData)) return;
  const data = isRecord(s.data) ? s.data : (s.data = {});
  for (const [k, val] of Object.entries(s.stringData)) if (typeof val === 'string') data[k] = Buffer.from(val).toString('base64');
  delete s.stringData;
}

export const secretStrategy = buildStrategy(R.secrets, {
  defaults: (s) => {
    defaultSecret(s);
    foldStringData(s);
  },
  validate: v.validateSecret,
  validateUpdate: (o, old) => [...v.validateImmutableData(o, old), ...v.validateSecret(o).filter((c) => !c.field?.startsWith('metadata'))],
});

export const serviceAccountStrategy = buildStrategy(R.serviceaccounts, { validate: v.validateServiceAccount });
export const endpointsStrategy = buildStrategy(R.endpoints, { defaults: (e) => defaultEndpoints(e), validate: v.validateEndpoints });
export const eventStrategy = buildStrategy(R.events, { validate: v.validateCoreEvent });
export const eventsV1Strategy = buildStrategy(R.eventsV1, { validate: v.validateEventsV1Event });
export const leaseStrategy = buildStrategy(R.leases, { validate: v.validateLease });
export const endpointSliceStrategy = buildStrategy(R.endpointslices, {
  defaults: (e) => defaultEndpointSlice(e),
  validate: v.validateEndpointSlice,
});
export const priorityClassStrategy = buildStrategy(R.priorityclasses, {
  defaults: (p) => defaultPriorityClass(p),
  validate: v.validatePriorityClass,
  validateUpdate: v.validatePriorityClassUpdate,
});
export const bindingStrategy = buildStrategy(R.bindings, { validate: v.validateBinding });
export const componentStatusStrategy = buildStrategy(R.componentstatuses, {});
