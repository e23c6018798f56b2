// The kubelet client against a fake kubelet: its certificate presented, the kubelet's serving certificate
// verified only against --kubelet-certificate-authority (not at all without one, or when a request skips it),
// Go's words when a request fails, and where a node's kubelet is reached.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { certificatePem, type Signer } from '@kemu/pki';
import { freePort } from '@kemu/base/testing/ports';
import { makeCa } from '../authn/testing/certs.ts';
import { KubeletClient, KubeletRequestError } from './client.ts';
import { nodeConnectionInfo } from './connection-info.ts';
import { DEFAULT_KUBELET_PREFERRED_ADDRESS_TYPES, type KubeletClientConfig } from './options.ts';
import { clientPair, startFakeKubelet, type FakeKubelet } from './testing/fake-kubelet.ts';

let ca: Signer;
let other: Signer;
let kubelet: FakeKubelet;
let pair: { cert: Buffer; key: Buffer };
const clients: KubeletClient[] = [];

function client(extra: Partial<KubeletClientConfig> = {}): KubeletClient {
  const c = new KubeletClient({ preferredAddressTypes: ['InternalIP'], defaultPort: 10250, dialTimeoutMs: 2000, ...pair, ...extra });
  clients.push(c);
  return c;
}

async function text(c: KubeletClient, port: number, opts: { insecureSkipTLSVerify?: boolean } = {}): Promise<string> {
  const res = await c.get(new URL(`https://127.0.0.1:${port}/containerLogs/default/p/c?tailLines=1`), opts);
  let out = `${res.statusCode} `;
  for await (const chunk of res) out += String(chunk);
  return out;
}

beforeAll(async () => {
  ca = await makeCa('kubernetes');
  other = await makeCa('someone-else');
  kubelet = await startFakeKubelet(ca);
  const p = await clientPair(ca, 'kube-apiserver', ['Kubernetes']);
  pair = { cert: Buffer.from(p.cert), key: Buffer.from(p.key) };
}, 30_000);

afterAll(async () => {
  for (const c of clients) c.close();
  await kubelet?.close();
});

describe('KubeletClient', () => {
  it('presents its client certificate; without --kubelet-certificate-authority it does not verify the kubelet', async () => {
    expect(await text(client(), kubelet.port)).toBe('200 query=tailLines=1\ncn=kube-apiserver\n');
    // No client certificate: the kubelet does not know the caller.
    expect(await text(client({ cert: undefined, key: undefined } as Partial<KubeletClientConfig>), kubelet.port)).toBe('401 Unauthorized');
  });

  it('verifies the kubelet\'s serving certificate against --kubelet-certificate-authority, unless the request skips it', async () => {
    expect(await text(client({ ca: Buffer.from(certificatePem(ca.cert)) }), kubelet.port)).toMatch(/^200 /);
    const wrong = client({ ca: Buffer.from(certificatePem(other.cert)) });
    const url = `https://127.0.0.1:${kubelet.port}/containerLogs/default/p/c?tailLines=1`;
    await expect(text(wrong, kubelet.port)).rejects.toEqual(new KubeletRequestError(`Get "${url}": tls: failed to verify certificate: x509: certificate signed by unknown authority`));
    expect(await text(wrong, kubelet.port, { insecureSkipTLSVerify: true })).toMatch(/^200 /);
  });

  it('gives up a kubelet that connects but never completes the TLS handshake, in Go\'s words', async () => {
    const sockets: net.Socket[] = [];
    const mute = net.createServer((s) => sockets.push(s));
    await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
    const port = (mute.address() as AddressInfo).port;
    try {
      await expect(text(client({ tlsHandshakeTimeoutMs: 200 }), port)).rejects.toThrow(`Get "https://127.0.0.1:${port}/containerLogs/default/p/c?tailLines=1": net/http: TLS handshake timeout`);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((r) => mute.close(r));
    }
  });

  it('says connection refused as Go does', async () => {
    const port = await freePort();
    await expect(text(client(), port)).rejects.toThrow(`Get "https://127.0.0.1:${port}/containerLogs/default/p/c?tailLines=1": dial tcp 127.0.0.1:${port}: connect: connection refused`);
  });
});

describe('nodeConnectionInfo', () => {
  const node = (addresses: { type: string; address: string }[], Port?: number) => ({
    metadata: { name: 'n' },
    status: { addresses, ...(Port !== undefined ? { daemonEndpoints: { kubeletEndpoint: { Port } } } : {}) },
  });
  const addrs = [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'worker-0' }];

  it('takes the first preferred address type the node has, and the port it reports (else 10250)', () => {
    expect(nodeConnectionInfo(node(addrs, 10350), DEFAULT_KUBELET_PREFERRED_ADDRESS_TYPES, 10250)).toEqual({ scheme: 'https', hostname: 'worker-0', port: 10350 });
    expect(nodeConnectionInfo(node(addrs, 0), ['InternalIP', 'ExternalIP', 'Hostname'], 10250)).toEqual({ scheme: 'https', hostname: '10.0.0.5', port: 10250 });
    expect(nodeConnectionInfo(node(addrs), ['ExternalIP', 'InternalIP'], 10250).hostname).toBe('10.0.0.5');
  });

  it('fails with NoMatchError\'s text when none fits', () => {
    expect(() => nodeConnectionInfo(node(addrs), ['ExternalIP'], 10250)).toThrow('no preferred addresses found; known addresses: [{InternalIP 10.0.0.5} {Hostname worker-0}]');
  });
});
