// Test helper: a kubelet's /containerLogs endpoint as the contract has it — HTTPS with a serving certificate
// from the test CA, asking for a client certificate and refusing (401) a caller without a verified one — whose
// containers answer according to their names:
//   waiting   400 `container "waiting" in pod "<pod>" is waiting to start: ContainerCreating`
//   boom      500 `boom`
//   forbidden 403 `Forbidden (user=<cn>, verb=get, resource=nodes, subresource=proxy)`
//   short     two lines, then the end (with or without follow)
//   crash     one line, then the connection breaks
//   anything else: follow=true streams `line <n>` every 20 ms until the caller goes; otherwise it echoes
//   the query and the caller's certificate CN.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { certificatePem, generatePrivateKey, issueCertificate, privateKeyPem, type Signer } from '@kemu/pki';

const DAY = 86_400_000;

export interface FakeKubelet {
  port: number;
  /** Follow streams the kubelet is writing now, and how many have been closed by the other side. */
  openFollows: number;
  closedFollows: number;
  /** Paths (with query) of the requests it got. */
  requests: string[];
  close(): Promise<void>;
}

export async function servingPair(ca: Signer, ips: string[]): Promise<{ cert: string; key: string }> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const now = Date.now();
  const cert = await issueCertificate(
    { subject: { CN: 'kubelet' }, publicKey: key, keyUsages: ['digitalSignature'], extKeyUsages: ['serverAuth'], ipAddresses: ips, notBefore: new Date(now - DAY), notAfter: new Date(now + DAY) },
    ca,
  );
  return { cert: certificatePem(cert), key: privateKeyPem(key) };
}

export async function clientPair(ca: Signer, cn: string, o: string[] = []): Promise<{ cert: string; key: string }> {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  const now = Date.now();
  const cert = await issueCertificate(
    { subject: { CN: cn, O: o }, publicKey: key, keyUsages: ['digitalSignature'], extKeyUsages: ['clientAuth'], notBefore: new Date(now - DAY), notAfter: new Date(now + DAY) },
    ca,
  );
  return { cert: certificatePem(cert), key: privateKeyPem(key) };
}

export async function startFakeKubelet(ca: Signer, address = '127.0.0.1'): Promise<FakeKubelet> {
  const serving = await servingPair(ca, [address]);
  const state = { openFollows: 0, closedFollows: 0, requests: [] as string[] };
  const server = https.createServer({ ...serving, ca: certificatePem(ca.cert), requestCert: true, rejectUnauthorized: false }, (req, res) => {
    state.requests.push(req.url ?? '');
    const socket = req.socket as TLSSocket;
    if (!socket.authorized) {
      res.writeHead(401, { 'content-type': 'text/plain; charset=utf-8' }).end('Unauthorized');
      return;
    }
    const cn = socket.getPeerCertificate().subject?.CN ?? '';
    const u = new URL(req.url ?? '/', 'https://kubelet');
    const m = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(u.pathname);
    if (!m) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('404 page not found\n');
      return;
    }
    const [, , pod, container] = m;
    const text = { 'content-type': 'text/plain; charset=utf-8' };
    if (container === 'waiting') return void res.writeHead(400, text).end(`container "waiting" in pod "${pod}" is waiting to start: ContainerCreating`);
    if (container === 'boom') return void res.writeHead(500, text).end('boom');
    if (container === 'forbidden') return void res.writeHead(403, text).end(`Forbidden (user=${cn}, verb=get, resource=nodes, subresource=proxy)`);
    if (container === 'short') return void res.writeHead(200, text).end('one\ntwo\n');
    if (container === 'crash') {
      res.writeHead(200, text).write('partial\n', () => setTimeout(() => req.socket.destroy(), 20));
      return;
    }
    if (u.searchParams.get('follow') !== 'true') return void res.writeHead(200, text).end(`query=${u.search.slice(1)}\ncn=${cn}\n`);
    res.writeHead(200, text);
    state.openFollows++;
    let n = 0;
    const timer = setInterval(() => res.write(`line ${++n}\n`), 20);
    res.on('close', () => {
      clearInterval(timer);
      state.openFollows--;
      state.closedFollows++;
    });
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  return Object.assign(state, {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as FakeKubelet;
}
