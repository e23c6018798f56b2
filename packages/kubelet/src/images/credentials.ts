// Registry credentials from a pod's imagePullSecrets, as the kubelet's credential keyring reads them: a
// kubernetes.io/dockerconfigjson Secret (`.dockerconfigjson`: {"auths": {"<registry>": {…}}}) or a legacy
// kubernetes.io/dockercfg one (`.dockercfg`: {"<registry>": {…}}). A key names a registry host, optionally
// with a scheme and a path prefix (`https://index.docker.io/v1/`, `registry.example.com/team`); Docker Hub's
// aliases are one registry. The emulation checks that credentials for the registry are given, not what they are.
import type { Secret } from '@kemu/api';
import type { ImageReference } from './reference.ts';

/** The registries a pod has credentials for: host (lower case, docker.io for Docker Hub) and path prefix. */
export type RegistryAuth = readonly { host: string; path: string }[];

const DOCKER_HUB = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io', 'registry.hub.docker.com']);

/** The registry keys one Secret holds (none when it is not a docker config Secret or does not parse). */
export function secretRegistries(secret: Secret): RegistryAuth {
  const data = secret.data ?? {};
  let auths: unknown;
  try {
    if (secret.type === 'kubernetes.io/dockerconfigjson' && data['.dockerconfigjson']) {
      auths = (JSON.parse(Buffer.from(data['.dockerconfigjson'], 'base64').toString('utf8')) as { auths?: unknown }).auths;
    } else if (secret.type === 'kubernetes.io/dockercfg' && data['.dockercfg']) {
      auths = JSON.parse(Buffer.from(data['.dockercfg'], 'base64').toString('utf8'));
    }
  } catch {
    return [];
  }
  if (!auths || typeof auths !== 'object') return [];
  return Object.keys(auths).map(registryKey).filter((k): k is { host: string; path: string } => k !== undefined);
}

function registryKey(key: string): { host: string; path: string } | undefined {
  const bare = key.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const slash = bare.indexOf('/');
  let host = (slash < 0 ? bare : bare.slice(0, slash)).toLowerCase();
  // Docker's legacy "/v1/" (and "/v2/") API suffixes are not repository paths.
  const path = (slash < 0 ? '' : bare.slice(slash + 1)).replace(/^v[12]\/?$/, '').replace(/\/+$/, '');
  if (!host) return undefined;
  if (DOCKER_HUB.has(host)) host = 'docker.io';
  return { host, path };
}

/** Whether some credential applies to the image's registry (and repository path, when the key has one). */
export function hasCredentials(auth: RegistryAuth | undefined, ref: ImageReference): boolean {
  const host = DOCKER_HUB.has(ref.domain.toLowerCase()) ? 'docker.io' : ref.domain.toLowerCase();
  return (auth ?? []).some((k) => k.host === host && (k.path === '' || ref.path === k.path || ref.path.startsWith(`${k.path}/`)));
}
