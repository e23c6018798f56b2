// Pod volume validation: unique DNS-1123 names, exactly one volume source, the sources' required fields.
import type { StatusCause } from '@kemu/api';
import { asArray, child, fieldErrors, index, isRecord } from './field.ts';
import { isDNS1123Label } from '@kemu/api';

/** Validates spec.volumes and returns the volume names (for volumeMount checks). */
export function validateVolumes(volumes: unknown, path: string, out: StatusCause[]): Set<string> {
  const names = new Set<string>();
  (asArray(volumes) ?? []).forEach((v: unknown, i) => {
    const p = index(path, i);
    if (!isRecord(v)) {
      out.push(fieldErrors.invalid(p, v, 'must be an object'));
      return;
    }
    const name = v.name;
    if (typeof name !== 'string' || name === '') out.push(fieldErrors.required(child(p, 'name')));
    else {
      for (const m of isDNS1123Label(name)) out.push(fieldErrors.invalid(child(p, 'name'), name, m));
      if (names.has(name)) out.push(fieldErrors.duplicate(child(p, 'name'), name));
      names.add(name);
    }
    const sources = Object.keys(v).filter((k) => k !== 'name' && v[k] !== null && v[k] !== undefined);
    if (sources.length === 0) out.push(fieldErrors.required(p, 'must specify a volume type'));
    for (const extra of sources.slice(1)) out.push(fieldErrors.forbidden(child(p, extra), 'may not specify more than 1 volume type'));
    const cm = v.configMap;
    if (isRecord(cm) && (typeof cm.name !== 'string' || cm.name === '')) out.push(fieldErrors.required(child(p, 'configMap', 'name')));
    const secret = v.secret;
    if (isRecord(secret) && (typeof secret.secretName !== 'string' || secret.secretName === ''))
      out.push(fieldErrors.required(child(p, 'secret', 'secretName')));
    const pvc = v.persistentVolumeClaim;
    if (isRecord(pvc) && (typeof pvc.claimName !== 'string' || pvc.claimName === '')) out.push(fieldErrors.required(child(p, 'persistentVolumeClaim', 'claimName')));
    const hp = v.hostPath;
    if (isRecord(hp) && (typeof hp.path !== 'string' || hp.path === '')) out.push(fieldErrors.required(child(p, 'hostPath', 'path')));
  });
  return names;
}
