import { describe, expect, it } from 'vitest';
import { ImageCatalog } from './catalog.ts';
import { secretRegistries } from './credentials.ts';
import { pullFailure } from './registry.ts';

const catalog = new ImageCatalog().add({
  repositories: {
    nginx: { tags: ['1.14.2'] },
    'acme/private': { tags: ['v1'], private: true },
    'registry.example.com/team/app': { tags: ['v1'], private: true },
  },
});

function dockerSecret(auths: Record<string, unknown>, type = 'kubernetes.io/dockerconfigjson') {
  const key = type === 'kubernetes.io/dockercfg' ? '.dockercfg' : '.dockerconfigjson';
  const body = type === 'kubernetes.io/dockercfg' ? auths : { auths };
  return { metadata: { name: 's' }, type, data: { [key]: Buffer.from(JSON.stringify(body)).toString('base64') } };
}

describe('pullFailure: what containerd answers the kubelet', () => {
  it('a tag a known repository lacks: NotFound, naming the normalised reference', () => {
    expect(pullFailure(catalog, 'nginx:1.161', undefined)).toEqual({
      reason: 'ErrImagePull',
      message:
        'rpc error: code = NotFound desc = failed to pull and unpack image "docker.io/library/nginx:1.161": failed to resolve reference "docker.io/library/nginx:1.161": docker.io/library/nginx:1.161: not found',
    });
    expect(pullFailure(catalog, 'nginx:1.14.2', undefined)).toBeUndefined();
    expect(pullFailure(catalog, 'some/unknown:tag', undefined)).toBeUndefined();
  });

  it('a private repository without credentials: Docker Hub\'s pull access denied, another registry\'s 401', () => {
    expect(pullFailure(catalog, 'acme/private:v1', undefined)?.message).toBe(
      'rpc error: code = Unknown desc = failed to pull and unpack image "docker.io/acme/private:v1": failed to resolve reference "docker.io/acme/private:v1": pull access denied, repository does not exist or may require authorization: server message: insufficient_scope: authorization failed',
    );
    expect(pullFailure(catalog, 'registry.example.com/team/app:v1', [])?.message).toBe(
      'rpc error: code = Unknown desc = failed to pull and unpack image "registry.example.com/team/app:v1": failed to resolve reference "registry.example.com/team/app:v1": unexpected status from HEAD request to https://registry.example.com/v2/team/app/manifests/v1: 401 Unauthorized',
    );
  });

  it('with credentials for the registry the private image pulls (a missing tag is then NotFound)', () => {
    const hub = secretRegistries(dockerSecret({ 'https://index.docker.io/v1/': { auth: 'dTpw' } }));
    expect(hub).toEqual([{ host: 'docker.io', path: '' }]);
    expect(pullFailure(catalog, 'acme/private:v1', hub)).toBeUndefined();
    expect(pullFailure(catalog, 'acme/private:v2', hub)?.message).toMatch(/code = NotFound .*docker\.io\/acme\/private:v2: not found$/);
    // Credentials for another registry do not help.
    expect(pullFailure(catalog, 'registry.example.com/team/app:v1', hub)?.reason).toBe('ErrImagePull');
    const own = secretRegistries(dockerSecret({ 'registry.example.com/team': { username: 'u', password: 'p' } }, 'kubernetes.io/dockercfg'));
    expect(pullFailure(catalog, 'registry.example.com/team/app:v1', own)).toBeUndefined();
    const otherPath = secretRegistries(dockerSecret({ 'registry.example.com/other': {} }));
    expect(pullFailure(catalog, 'registry.example.com/team/app:v1', otherPath)?.reason).toBe('ErrImagePull');
  });

  it('a Secret of another type or with bad data gives no credentials', () => {
    expect(secretRegistries({ metadata: {}, type: 'Opaque', data: { '.dockerconfigjson': 'e30=' } })).toEqual([]);
    expect(secretRegistries({ metadata: {}, type: 'kubernetes.io/dockerconfigjson', data: { '.dockerconfigjson': 'bm90IGpzb24=' } })).toEqual([]);
  });

  it('an image name the reference grammar refuses: InvalidImageName with the kubelet\'s message', () => {
    expect(pullFailure(catalog, 'Nginx', undefined)).toEqual({
      reason: 'InvalidImageName',
      message: 'Failed to apply default image tag "Nginx": couldn\'t parse image name "Nginx": invalid reference format: repository name (library/Nginx) must be lowercase',
    });
  });
});
