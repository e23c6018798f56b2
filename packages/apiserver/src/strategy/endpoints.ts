// endpoints: port protocols default to TCP; addresses must be IPs.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultEndpoints } from '../defaults/core.ts';
import { validateEndpoints } from '../validation/misc.ts';

export const endpointsStrategy = buildStrategy(R.endpoints, { defaults: (e) => defaultEndpoints(e), validate: validateEndpoints });
