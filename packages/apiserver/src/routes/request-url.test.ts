// requestUrl keeps the path as sent: dot segments, percent-encodings and backslashes are not resolved.
import { describe, expect, it } from 'vitest';
import { requestUrl } from './request-url.ts';

describe('requestUrl', () => {
  const cases: Array<[string, string, Record<string, string>]> = [
    ['/api/v1/namespaces/tr1/configmaps/..', '/api/v1/namespaces/tr1/configmaps/..', {}],
    ['/api/v1/namespaces/tr1/configmaps/%2e%2e?dryRun=All', '/api/v1/namespaces/tr1/configmaps/%2e%2e', { dryRun: 'All' }],
    ['/api/v1/namespaces/tr1/configmaps/x/../..?watch=1&labelSelector=a%3Db', '/api/v1/namespaces/tr1/configmaps/x/../..', { watch: '1', labelSelector: 'a=b' }],
    ['/api\\v1\\pods', '/api\\v1\\pods', {}],
    ['http://example.com:6443/api/v1/./pods?limit=1', '/api/v1/./pods', { limit: '1' }],
    ['http://example.com', '/', {}],
    ['/api/v1/pods#frag', '/api/v1/pods', {}],
  ];
  for (const [target, pathname, query] of cases) {
    it(target, () => {
      const u = requestUrl(target);
      expect(u.pathname).toBe(pathname);
      expect(Object.fromEntries(u.searchParams)).toEqual(query);
    });
  }
});
