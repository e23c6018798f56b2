// Protobuf review bodies over HTTP (fastify inject on a MemoryBackend): what `kubectl auth can-i` and
// `kubectl auth whoami` 1.32 post is answered like the JSON body, not refused with a 415.
import { createApiServer, type ApiServer } from '@kemu/apiserver';
import { silentLogger } from '@kemu/base';
import { MemoryBackend } from '@kemu/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bool, cat, entry, envelope, msg, str } from './encoder.ts';

const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const SSAR = '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews';
const SSR = '/apis/authentication.k8s.io/v1/selfsubjectreviews';

let srv: ApiServer;

beforeAll(async () => {
  srv = await createApiServer({ backend: new MemoryBackend(), logger: silentLogger() });
  await srv.start();
});
afterAll(async () => srv?.close());

async function postProtobuf(url: string, apiVersion: string, kind: string, raw: Uint8Array): Promise<{ status: number; body: Record<string, any> }> {
  const r = await srv.app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': PROTOBUF, accept: `${PROTOBUF}, application/json` },
    payload: envelope(apiVersion, kind, raw),
  });
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  return { status: r.statusCode, body: r.json() as Record<string, any> };
}

/** SubjectAccessReviewStatus as gogo writes the zero value: every scalar emitted. */
const zeroStatus = msg(3, bool(1, false), str(2, ''), str(3, ''), bool(4, false));

describe('protobuf SelfSubjectAccessReview and SelfSubjectReview', () => {
  it('a resource review is 201, allowed, with the spec (selectors included) echoed', async () => {
    const raw = cat(
      msg(1),
      msg(
        2,
        msg(
          1,
          str(1, 'default'),
          str(2, 'create'),
          str(3, ''),
          str(4, ''),
          str(5, 'pods'),
          str(6, ''),
          str(7, ''),
          msg(8, str(1, 'spec.nodeName=n1')),
          msg(9, msg(2, str(1, 'app'), str(2, 'In'), str(3, 'web'))),
        ),
      ),
      zeroStatus,
    );
    const r = await postProtobuf(SSAR, 'authorization.k8s.io/v1', 'SelfSubjectAccessReview', raw);
    expect(r.status).toBe(201);
    expect(r.body.kind).toBe('SelfSubjectAccessReview');
    expect(r.body.apiVersion).toBe('authorization.k8s.io/v1');
    expect(r.body.spec).toEqual({
      resourceAttributes: {
        namespace: 'default',
        verb: 'create',
        resource: 'pods',
        fieldSelector: { rawSelector: 'spec.nodeName=n1' },
        labelSelector: { requirements: [{ key: 'app', operator: 'In', values: ['web'] }] },
      },
    });
    expect(r.body.status.allowed).toBe(true);
    expect(r.body.metadata.resourceVersion).toBeUndefined();
  });

  it('a non-resource review (auth can-i get /healthz) is 201 and allowed', async () => {
    const r = await postProtobuf(SSAR, 'authorization.k8s.io/v1', 'SelfSubjectAccessReview', cat(msg(1), msg(2, msg(2, str(1, '/healthz'), str(2, 'get'))), zeroStatus));
    expect(r.status).toBe(201);
    expect(r.body.spec).toEqual({ nonResourceAttributes: { path: '/healthz', verb: 'get' } });
    expect(r.body.status.allowed).toBe(true);
  });

  it('validation still answers: a spec without attributes is 422 Invalid', async () => {
    const r = await postProtobuf(SSAR, 'authorization.k8s.io/v1', 'SelfSubjectAccessReview', cat(msg(1), msg(2), zeroStatus));
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'Invalid' });
    expect(r.body.message).toContain('exactly one of nonResourceAttributes or resourceAttributes must be specified');
  });

  it('a SelfSubjectReview (auth whoami) is 201 with the caller', async () => {
    const r = await postProtobuf(SSR, 'authentication.k8s.io/v1', 'SelfSubjectReview', cat(msg(1), msg(2, msg(1))));
    expect(r.status).toBe(201);
    expect(r.body.kind).toBe('SelfSubjectReview');
    expect(r.body.status).toEqual({ userInfo: { username: 'system:unsecured', groups: ['system:masters', 'system:authenticated'] } });
  });

  it('a SubjectAccessReview (what delegated authorizers post) and a LocalSubjectAccessReview are decoded and answered', async () => {
    const spec = msg(2, msg(1, str(1, 'team-a'), str(2, 'list'), str(5, 'pods')), str(3, 'bob'), str(4, 'dev'), str(4, 'system:authenticated'), entry(5, 'scopes.example.com', str(1, 'x')), str(6, 'u-1'));
    const r = await postProtobuf('/apis/authorization.k8s.io/v1/subjectaccessreviews', 'authorization.k8s.io/v1', 'SubjectAccessReview', cat(msg(1), spec, zeroStatus));
    expect(r.status).toBe(201);
    expect(r.body.kind).toBe('SubjectAccessReview');
    expect(r.body.spec).toEqual({
      resourceAttributes: { namespace: 'team-a', verb: 'list', resource: 'pods' },
      user: 'bob',
      groups: ['dev', 'system:authenticated'],
      extra: { 'scopes.example.com': ['x'] },
      uid: 'u-1',
    });
    expect(r.body.status).toEqual({ allowed: true });
    const local = await postProtobuf('/apis/authorization.k8s.io/v1/namespaces/team-a/localsubjectaccessreviews', 'authorization.k8s.io/v1', 'LocalSubjectAccessReview', cat(msg(1), spec, zeroStatus));
    expect(local.status).toBe(201);
    expect(local.body.metadata.namespace).toBe('team-a');
  });
});
