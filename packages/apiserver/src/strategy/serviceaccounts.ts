// serviceaccounts: metadata only (no token controller in kemu).
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { validateServiceAccount } from '../validation/misc.ts';

export const serviceAccountStrategy = buildStrategy(R.serviceaccounts, { validate: validateServiceAccount });
