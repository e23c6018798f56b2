import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { freeLabAddress } from '@kemu/base/testing/ports';
import { waitFor } from '@kemu/base/testing/processes';
import { selfSignedServingCert } from '@kemu/pki';
import { COMPOSE_CONFIG, checkHaproxyConfig, composeHaproxyParams, findHaproxy, localHaproxyParams, renderHaproxyConfig } from './haproxy.ts';

const haproxy = findHaproxy();

describe('haproxy config', () => {
  it('the committed compose config is the template rendered for compose', () => {
    expect(fs.readFileSync(COMPOSE_CONFIG, 'utf8')).toBe(renderHaproxyConfig(composeHaproxyParams()));
  });

  it('checks /readyz with quick fall/rise and keeps watches open for an hour', () => {
    const cfg = renderHaproxyConfig(localHaproxyParams({ host: '127.0.0.1', port: 6443 }, { host: '127.0.0.1', port: 8404 }, [{ name: 'apiserver-0', host: '127.0.0.10', port: 6443 }]));
    expect(cfg).toContain('option httpchk GET /readyz');
    expect(cfg).toContain('http-check expect status 200');
    expect(cfg).toMatch(/default-server inter 1s fall 2 rise 1/);
    expect(cfg).toContain('timeout tunnel 1h');
    expect(cfg).toContain('balance roundrobin');
    expect(cfg).toContain('bind 127.0.0.1:6443');
    // Checked over TLS without verifying (the apiservers serve HTTPS); the traffic itself passes through.
    expect(cfg).toContain('server apiserver-0 127.0.0.10:6443 check check-ssl verify none');
    // No replica up: connections are refused, and a refused connect takes a replica out at once.
    expect(cfg).toContain('tcp-request connection reject if { nbsrv(kube-apiservers) eq 0 }');
    expect(cfg).toMatch(/default-server .* observe layer4 error-limit 1 on-error mark-down/);
  });

  it('rejects an unknown placeholder', () => {
    expect(() => renderHaproxyConfig(composeHaproxyParams(), 'bind {{nope}}')).toThrow(/unknown placeholder/);
  });

  it.skipIf(!haproxy)('haproxy -c accepts both variants' + (haproxy ? '' : ' (skipped: haproxy is not installed; apt-get install haproxy)'), () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-haproxy-'));
    try {
      const local = path.join(dir, 'local.cfg');
      fs.writeFileSync(local, renderHaproxyConfig(localHaproxyParams({ host: '127.0.0.1', port: 6443 }, { host: '127.0.0.1', port: 8404 }, [0, 1, 2].map((i) => ({ name: `apiserver-${i}`, host: `127.0.0.1${i}`, port: 6443 })))));
      expect(checkHaproxyConfig(haproxy!, local)).toBeUndefined();
      expect(checkHaproxyConfig(haproxy!, COMPOSE_CONFIG)).toBeUndefined();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it.skipIf(!haproxy)('HAProxy refuses connections while no apiserver is ready, then forwards again' + (haproxy ? '' : ' (skipped: haproxy is not installed)'), async () => {
    const { address, port, block } = await freeLabAddress();
    let ready = true;
    let hits = 0;
    // An HTTPS backend, as the apiservers are: HAProxy checks it over TLS and passes the clients' TLS through.
    const pair = await selfSignedServingCert({ host: `${block}.10` });
    const backend = https.createServer({ cert: pair.certPem, key: pair.keyPem }, (req, res) => {
      if (req.url === '/readyz') return void res.writeHead(ready ? 200 : 500).end(ready ? 'ok' : 'not ready');
      hits++;
      res.writeHead(201).end('created');
    });
    await new Promise<void>((r) => backend.listen(0, `${block}.10`, () => r()));
    const statsPort = await new Promise<number>((r) => {
      const s = http.createServer().listen(0, address, () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => r(p));
      });
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-haproxy-'));
    const cfg = path.join(dir, 'haproxy.cfg');
    fs.writeFileSync(cfg, renderHaproxyConfig(localHaproxyParams({ host: address, port }, { host: address, port: statsPort }, [{ name: 'apiserver-0', host: `${block}.10`, port: (backend.address() as AddressInfo).port }])));
    const proc = spawn(haproxy!, ['-db', '-f', cfg], { stdio: 'ignore' });
    const post = () =>
      new Promise<string>((resolve) => {
        const req = https.request({ host: address, port, method: 'POST', path: '/api/v1/namespaces/default/configmaps', agent: false, rejectUnauthorized: false }, (res) => {
          res.resume();
          resolve(String(res.statusCode));
        });
        // A reset: as `connect` or, when the loaded machine lets the TLS hello go first, as `read`; either way nothing reached the backend.
        req.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
        req.end('{}');
      });
    try {
      await waitFor('HAProxy forwards', async () => (await post()) === '201', 10_000, 100);
      ready = false;
      // Out after two failed checks (inter 1s fall 2): from then on a connection is reset and nothing is forwarded.
      await waitFor('HAProxy refuses', async () => (await post()) === 'ECONNRESET', 10_000, 100);
      const before = hits;
      expect(await Promise.all([post(), post(), post()])).toEqual(['ECONNRESET', 'ECONNRESET', 'ECONNRESET']);
      expect(hits).toBe(before);
      ready = true;
      await waitFor('HAProxy forwards again', async () => (await post()) === '201', 10_000, 100);
    } finally {
      proc.kill('SIGKILL');
      backend.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
