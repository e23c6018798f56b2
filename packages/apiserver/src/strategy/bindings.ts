// bindings (pods/binding and POST bindings): target must name a Node.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { validateBinding } from '../validation/misc.ts';

export const bindingStrategy = buildStrategy(R.bindings, { validate: validateBinding });
