// The default/kubernetes Endpoints and EndpointSlice with three kube-apiserver processes on one store,
// bound to 127.0.0.1, .2 and .3 on one port (each advertises its bind address): all three are listed,
// and a replica that dies is removed once its identity Lease goes stale (short lease flags).
import { freePort } from '@kemu/base/testing/ports';
import { BIN, startProcess, waitFor, type Proc } from '@kemu/base/testing/processes';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api } from './cluster.ts';

const IPS = ['127.0.0.1', '127.0.0.2', '127.0.0.3'];
let dir: string;
let port: number;
const procs: Proc[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'kemu-endpoints-'));
  const db = path.join(dir, 'state.db');
  port = await freePort();
  IPS.forEach((ip, i) =>
    procs.push(
      startProcess(`apiserver-${i}`, BIN.apiserver, [
        `--bind-address=${ip}`,
        '--secure-port=0',
        `--insecure-bind-address=${ip}`,
        `--insecure-port=${port}`,
        `--datastore-endpoint=sqlite://${db}`,
        `--hostname-override=apiserver-${i}`,
        '--identity-lease-renew-interval=200ms',
        '--identity-lease-duration-seconds=3',
      ]),
    ),
  );
  await Promise.all(
    IPS.map((ip, i) =>
      waitFor(`apiserver-${i} ready`, async () => {
        const p = procs[i] as Proc;
        if (p.child.exitCode !== null) throw new Error(`apiserver-${i} exited: ${p.output()}`);
        return (await api(`http://${ip}:${port}/readyz`, 'GET')).status === 200;
      }, 30_000),
    ),
  );
}, 60_000);
afterAll(async () => {
  await Promise.all(procs.map((p) => p.kill('SIGKILL')));
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Subset {
  addresses?: { ip: string }[];
  ports?: { name: string; port: number; protocol: string }[];
}
interface Slice {
  metadata: { name?: string; labels?: Record<string, string> };
  addressType?: string;
  endpoints?: { addresses: string[]; conditions?: { ready?: boolean } }[];
  ports?: { name: string; port: number; protocol: string }[];
}

const url = (ip = '127.0.0.1') => `http://${ip}:${port}`;
async function endpointIPs(via: string): Promise<string[]> {
  const r = await api(`${via}/api/v1/namespaces/default/endpoints/kubernetes`, 'GET');
  if (r.status !== 200) return [];
  return ((r.body.subsets as Subset[] | undefined) ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
}
async function slices(via: string): Promise<Slice[]> {
  const r = await api(`${via}/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?labelSelector=kubernetes.io%2Fservice-name%3Dkubernetes`, 'GET');
  return (r.body.items as Slice[] | undefined) ?? [];
}

describe('default/kubernetes endpoints (lease reconciler)', () => {
  it('lists every live replica in the Endpoints and the EndpointSlice', async () => {
    await waitFor('three addresses', async () => (await endpointIPs(url())).length === 3, 20_000);
    const ep = await api(`${url('127.0.0.2')}/api/v1/namespaces/default/endpoints/kubernetes`, 'GET');
    expect(ep.body.subsets).toEqual([
      { addresses: IPS.map((ip) => ({ ip })), ports: [{ name: 'https', port, protocol: 'TCP' }] },
    ]);
    expect(ep.body.metadata.labels).toMatchObject({ 'endpointslice.kubernetes.io/skip-mirror': 'true' });
    await waitFor('slice with three endpoints', async () => (await slices(url()))[0]?.endpoints?.length === 3, 20_000);
    const [slice, ...more] = await slices(url('127.0.0.3'));
    expect(more).toEqual([]);
    expect(slice?.metadata.name).toBe('kubernetes');
    expect(slice?.addressType).toBe('IPv4');
    expect(slice?.ports).toEqual([{ name: 'https', port, protocol: 'TCP' }]);
    expect(slice?.endpoints?.map((e) => e.addresses[0])).toEqual(IPS);
    expect(slice?.endpoints?.every((e) => e.conditions?.ready === true)).toBe(true);
  });

  it('removes a replica once its identity Lease has expired', async () => {
    await (procs[2] as Proc).kill('SIGKILL');
    await waitFor('the dead replica dropped from Endpoints', async () => (await endpointIPs(url())).join() === '127.0.0.1,127.0.0.2', 20_000);
    await waitFor('the dead replica dropped from the EndpointSlice', async () => {
      const s = await slices(url('127.0.0.2'));
      return s.length === 1 && s[0]?.endpoints?.map((e) => e.addresses[0]).join() === '127.0.0.1,127.0.0.2';
    }, 20_000);
  });
});
