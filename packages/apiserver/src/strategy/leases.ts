// leases: leaseDurationSeconds > 0, leaseTransitions >= 0.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { validateLease } from '../validation/misc.ts';

export const leaseStrategy = buildStrategy(R.leases, { validate: validateLease });
