// priorityclasses: preemptionPolicy defaults to PreemptLowerPriority; value and policy are immutable;
// the system- prefix is reserved.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultPriorityClass } from '../defaults/core.ts';
import { validatePriorityClass, validatePriorityClassUpdate } from '../validation/misc.ts';

export const priorityClassStrategy = buildStrategy(R.priorityclasses, {
  defaults: (p) => defaultPriorityClass(p),
  validate: validatePriorityClass,
  validateUpdate: validatePriorityClassUpdate,
});
