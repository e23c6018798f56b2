// configmaps: data keys validated; an immutable ConfigMap keeps its data.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { validateConfigMap, validateImmutableData } from '../validation/misc.ts';

export const configMapStrategy = buildStrategy(R.configmaps, {
  validate: validateConfigMap,
  validateUpdate: (o, old) => [...validateImmutableData(o, old), ...validateConfigMap(o).filter((c) => !c.field?.startsWith('metadata'))],
});
