// componentstatuses: read-only, synthesized by the server; only the printer matters.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';

export const componentStatusStrategy = buildStrategy(R.componentstatuses, {});
