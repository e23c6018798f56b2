import { afterEach, describe, expect, it } from 'vitest';
import { R, type CertificateSigningRequest } from '@kemu/api';
import { waitFor } from '@kemu/base/testing/processes';
import { fakeContext, settle, type FakeEnv } from '../../testing/context.ts';
import { CsrApprovingController } from './approver.ts';
import { nodeClientCsr, nodeServingCsr, type CsrOptions } from './testing.ts';

const envs: FakeEnv[] = [];
afterEach(() => envs.splice(0).forEach((e) => e.abort.abort()));

type Spec = { user?: string; groups?: string[]; resourceAttributes?: { verb: string; group: string; resource: string; subresource: string } };

/** The seed's bindings: bootstrappers may create nodeclient requests, nodes selfnodeclient ones. */
function seedBindings(spec: Record<string, unknown>): boolean {
  const s = spec as Spec;
  const ra = s.resourceAttributes;
  if (ra?.verb !== 'create' || ra.group !== 'certificates.k8s.io' || ra.resource !== 'certificatesigningrequests') return false;
  if (ra.subresource === 'nodeclient') return (s.groups ?? []).includes('system:bootstrappers');
  if (ra.subresource === 'selfnodeclient') return (s.groups ?? []).includes('system:nodes');
  return false;
}

async function start(...csrs: CertificateSigningRequest[]): Promise<FakeEnv> {
  const env = fakeContext();
  envs.push(env);
  env.api.reviewAccess = seedBindings;
  for (const c of csrs) await env.api.create(R.certificatesigningrequests, undefined, c);
  const c = new CsrApprovingController(env.ctx);
  env.informers.start(env.abort.signal);
  void c.run();
  await settle();
  return env;
}

const get = (env: FakeEnv, name: string) => env.api.get<CertificateSigningRequest>(R.certificatesigningrequests, undefined, name);
const conditionsOf = async (env: FakeEnv, name: string) => (await get(env, name)).status?.conditions;
/** Waits until the request has a condition (parsing and reviewing it take a few event-loop turns). */
const decided = (env: FakeEnv, name: string) => waitFor(`a condition on ${name}`, () => conditionsOf(env, name), 5_000, 5);
/** Waits until the approver has asked about every request (it has nothing more to do). */
const reviewed = (env: FakeEnv, n: number) => waitFor(`${n} reviews`, () => reviews(env).length >= n, 5_000, 5);
const reviews = (env: FakeEnv) =>
  env.api.calls.filter((c) => c.verb === 'create' && c.resource === 'subjectaccessreviews').map((c) => (c.body as { spec: Spec }).spec.resourceAttributes?.subresource);

const bootstrapCsr = (name: string, o: Partial<CsrOptions> = {}) =>
  nodeClientCsr(name, {
    username: 'system:bootstrap:07401b',
    groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
    ...o,
  });

describe('csrapproving', () => {
  it("approves a bootstrapping kubelet's client request through /approval when the review allows nodeclient", async () => {
    const env = await start(await bootstrapCsr('node-csr-1'));
    expect(await decided(env, 'node-csr-1')).toEqual([
      { type: 'Approved', status: 'True', reason: 'AutoApproved', message: 'Auto approving kubelet client certificate after SubjectAccessReview.' },
    ]);
    expect(env.api.calls.filter((c) => c.resource === 'certificatesigningrequests' && c.verb.startsWith('update')).map((c) => c.verb)).toEqual(['update/approval']);
    // The review asked about the requester as the apiserver recorded it.
    const sar = env.api.calls.find((c) => c.resource === 'subjectaccessreviews')?.body as { spec: Spec };
    expect(sar.spec).toMatchObject({
      user: 'system:bootstrap:07401b',
      groups: ['system:bootstrappers', 'system:bootstrappers:kubeadm:default-node-token', 'system:authenticated'],
      resourceAttributes: { group: 'certificates.k8s.io', resource: 'certificatesigningrequests', verb: 'create', subresource: 'nodeclient' },
    });
  });

  it('approves a renewal (CN is the requester) after a selfnodeclient review; the ECDSA usage set is a node client too', async () => {
    const env = await start(
      await bootstrapCsr('renewal', { username: 'system:node:worker-1', groups: ['system:nodes', 'system:authenticated'], usages: ['digital signature', 'client auth'] }),
    );
    expect((await decided(env, 'renewal'))[0]).toMatchObject({
      reason: 'AutoApproved',
      message: 'Auto approving self kubelet client certificate after SubjectAccessReview.',
    });
    expect(reviews(env)).toEqual(['selfnodeclient']);
  });

  it('leaves a request pending while the review says no, and approves it once the requester is granted nodeclient', async () => {
    const env = await start(await bootstrapCsr('pending', { username: 'jane', groups: ['system:authenticated'] }));
    await reviewed(env, 1);
    await settle();
    expect(await conditionsOf(env, 'pending')).toBeUndefined();
    expect(reviews(env)).toEqual(['nodeclient']);
    // The binding appears; the request is reviewed again after the loop's back-off.
    env.api.reviewAccess = () => true;
    await env.clock.advance(1_000);
    expect((await decided(env, 'pending'))[0]?.reason).toBe('AutoApproved');
  });

  it('does not touch kubelet-serving requests, requests that are not a node client, or requests already decided', async () => {
    const env = await start(
      await nodeServingCsr('serving', { username: 'system:node:worker-1', groups: ['system:nodes'] }),
      await bootstrapCsr('wrong-org', { subject: { CN: 'system:node:worker-1', O: ['system:masters'] } }),
      await bootstrapCsr('with-san', { hosts: ['worker-1'] }),
      await bootstrapCsr('server-usage', { usages: ['digital signature', 'key encipherment', 'server auth'] }),
      await bootstrapCsr('denied', { conditions: [{ type: 'Denied', status: 'True', reason: 'AdminDenied' }] }),
      await bootstrapCsr('control'),
    );
    // The one request it may approve is approved; by then it has looked at every other.
    await decided(env, 'control');
    await settle();
    for (const name of ['serving', 'wrong-org', 'with-san', 'server-usage']) expect((await get(env, name)).status?.conditions).toBeUndefined();
    expect((await get(env, 'denied')).status?.conditions).toEqual([{ type: 'Denied', status: 'True', reason: 'AdminDenied' }]);
    expect(reviews(env)).toEqual(['nodeclient']);
  });
});
