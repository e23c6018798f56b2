// secrets: type Opaque by default; stringData is write-only, folded into data (base64) as the Secret
// conversion does; type and (when immutable) data never change.
import { R } from '@kemu/api';
import type { KubeObject } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultSecret } from '../defaults/core.ts';
import { validateImmutableData, validateSecret } from '../validation/misc.ts';
import { isRecord } from '../validation/field.ts';

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
  validate: validateSecret,
  validateUpdate: (o, old) => [...validateImmutableData(o, old), ...validateSecret(o).filter((c) => !c.field?.startsWith('metadata'))],
});
