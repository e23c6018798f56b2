// The Warning header of a request to a deprecated version of a custom resource (apiextensions-apiserver's
// crdHandler): the version's deprecationWarning, or "<group>/<version> <Kind> is deprecated; use
// <group>/<newer> <Kind>" naming the highest served, non-deprecated version newer than it.
import type { ResourceInfo } from '@kemu/api';
import { asString } from '../validation/field.ts';
import { definitionOf, versionsOf } from './definitions.ts';
import { compareKubeAwareVersions } from './version-priority.ts';

/** The warning text for a request to r, undefined unless r is a deprecated version of a custom resource. */
export function deprecationWarning(r: ResourceInfo): string | undefined {
  const crd = definitionOf(r);
  if (!crd) return undefined;
  const versions = versionsOf(crd);
  const v = versions.find((x) => x.name === r.version);
  if (v?.deprecated !== true) return undefined;
  const custom = asString(v.deprecationWarning);
  if (custom !== undefined) return custom;
  const msg = `${r.group}/${r.version} ${r.kind} is deprecated`;
  const newer = versions
    .filter((x) => x.served === true && x.deprecated !== true && typeof x.name === 'string' && compareKubeAwareVersions(r.version, x.name) < 0)
    .map((x) => String(x.name))
    .sort((a, b) => compareKubeAwareVersions(b, a));
  return newer[0] ? `${msg}; use ${r.group}/${newer[0]} ${r.kind}` : msg;
}

export function deprecationWarnings(r: ResourceInfo): string[] {
  const w = deprecationWarning(r);
  return w === undefined ? [] : [w];
}
