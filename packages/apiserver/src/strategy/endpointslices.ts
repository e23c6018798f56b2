// endpointslices: addressType required, 1..100 addresses per endpoint of that type, port protocol TCP.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultEndpointSlice } from '../defaults/core.ts';
import { validateEndpointSlice } from '../validation/misc.ts';

export const endpointSliceStrategy = buildStrategy(R.endpointslices, {
  defaults: (e) => defaultEndpointSlice(e),
  validate: validateEndpointSlice,
});
