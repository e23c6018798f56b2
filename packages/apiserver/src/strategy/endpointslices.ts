// endpointslices: addressType required, 1..100 addresses per endpoint of that type, port protocol TCP.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultEndpointSlice } from '../defaults/core.ts';
import { validateEndpointSlice } from '../validation/misc.ts';

export const endpointSliceStrategy = buildStrategy(R.endpointslices, {
  defaults: (e) => defaultEndpointSlice(e),
  validate: validateEndpointSlice,
  // pkg/registry/discovery/endpointslice: Generation = 1 on create, +1 when anything but metadata changes.
  generation: true,
  prepareForUpdate(e, old) {
    // A label change counts too (the slice's service-name label is part of what consumers see).
    const gen = old.metadata.generation ?? 1;
    if (e.metadata.generation === gen && JSON.stringify(e.metadata.labels ?? {}) !== JSON.stringify(old.metadata.labels ?? {})) e.metadata.generation = gen + 1;
  },
});
