// Image references as the container runtime reads them (the distribution/reference grammar containerd and
// the kubelet use): "nginx" is docker.io/library/nginx:latest, "index.docker.io" is docker.io, a digest
// (`@sha256:…`) names one manifest and wins over a tag. Parsing never throws: a bad reference is an error
// text in the library's words, which the kubelet puts in its InvalidImageName message.

export interface ImageReference {
  /** The registry host (with port): docker.io, registry.k8s.io, localhost:5000. */
  domain: string;
  /** The repository path in that registry: library/nginx, google-samples/kubernetes-bootcamp. */
  path: string;
  /** domain/path: the key the catalogue is looked up by. */
  repository: string;
  tag?: string;
  /** algorithm:hex, e.g. sha256:… */
  digest?: string;
  /** The fully qualified reference containerd reports: docker.io/library/nginx:1.161 (":latest" added when neither is given). */
  normalized: string;
}

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN = /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:.]+\])(?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/;
const MAX_NAME = 255;
const INVALID = 'invalid reference format';

/** The reference, or the parse error's text (`invalid reference format…`). */
export function parseImageReference(image: string): ImageReference | { error: string } {
  let rest = image;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) return { error: INVALID };
    if (digest.startsWith('sha256:') && digest.length !== 'sha256:'.length + 64) return { error: 'invalid checksum digest length' };
  }
  let tag: string | undefined;
  const colon = rest.lastIndexOf(':');
  if (colon > rest.lastIndexOf('/')) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!TAG.test(tag)) return { error: INVALID };
  }
  if (rest === '') return { error: INVALID };
  // splitDockerDomain: the first part is a registry when it has a dot or a port, is localhost, or has capitals.
  let domain = 'docker.io';
  let path = rest;
  const slash = rest.indexOf('/');
  if (slash >= 0) {
    const first = rest.slice(0, slash);
    if (/[.:]/.test(first) || first === 'localhost' || first.toLowerCase() !== first) {
      domain = first;
      path = rest.slice(slash + 1);
    }
  }
  if (domain === 'index.docker.io') domain = 'docker.io';
  if (!DOMAIN.test(domain)) return { error: INVALID };
  if (domain === 'docker.io' && !path.includes('/')) path = `library/${path}`;
  const parts = path.split('/');
  if (parts.some((p) => !COMPONENT.test(p))) {
    // Capitals are the common mistake and get their own words (distribution/reference v0.6).
    if (parts.every((p) => COMPONENT.test(p.toLowerCase()))) return { error: `${INVALID}: repository name (${path}) must be lowercase` };
    return { error: INVALID };
  }
  const repository = `${domain}/${path}`;
  if (repository.length > MAX_NAME) return { error: 'repository name must not be more than 255 characters' };
  const normalized = repository + (tag !== undefined ? `:${tag}` : '') + (digest !== undefined ? `@${digest}` : '') + (tag === undefined && digest === undefined ? ':latest' : '');
  return { domain, path, repository, tag, digest, normalized };
}
