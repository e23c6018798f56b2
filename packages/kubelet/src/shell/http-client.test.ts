import { describe, expect, it } from 'vitest';
import { curl, parseUrl, wget, type HttpClientIO } from './http-client.ts';
import type { HttpExchange, HttpOutcome } from './network.ts';

const PAGE = '<h1>hello</h1>\n';

function io(files: Map<string, string> = new Map()): HttpClientIO & { seen: HttpExchange[] } {
  const seen: HttpExchange[] = [];
  return {
    seen,
    network: {
      request: async (req): Promise<HttpOutcome> => {
        seen.push(req);
        if (req.host === 'nosuch') return { kind: 'error', error: 'unknown-host' };
        if (req.host === 'empty') return { kind: 'error', error: 'refused', address: '10.96.0.7' };
        const status = req.path === '/missing' ? 404 : 200;
        return { kind: 'response', address: '10.96.0.20', status, statusText: status === 200 ? 'OK' : 'Not Found', httpVersion: '1.1', headers: [['Server', 'nginx/1.27.3']], body: req.method === 'HEAD' ? '' : PAGE };
      },
    },
    writeFile: (p, t) => void files.set(p, t),
    fileExists: (p) => files.has(p),
  };
}

describe('parseUrl', () => {
  it('reads URLs with and without a scheme', () => {
    expect(parseUrl('http://web')).toEqual({ host: 'web', port: 80, path: '/' });
    expect(parseUrl('web:8080/x?y=1')).toEqual({ host: 'web', port: 8080, path: '/x?y=1' });
    expect(parseUrl('ftp://web')).toEqual({ scheme: 'ftp' });
  });
});

describe('busybox wget', () => {
  it('-q -O- prints the body alone', async () => {
    const c = io();
    expect(await wget(['-q', '-O-', 'http://php-apache'], c)).toEqual({ out: PAGE, err: '', status: 0 });
    expect(c.seen[0]).toMatchObject({ method: 'GET', host: 'php-apache', port: 80, path: '/', headers: { Host: 'php-apache', 'User-Agent': 'Wget' } });
    expect((await wget(['-qO-', 'web'], c)).out).toBe(PAGE);
  });

  it('without -q reports the connection and saves index.html, which it then will not overwrite', async () => {
    const files = new Map<string, string>();
    const r = await wget(['http://web'], io(files));
    expect(r.status).toBe(0);
    expect(r.err).toBe(`Connecting to web (10.96.0.20:80)\nsaving to 'index.html'\nindex.html           100% |********************************|    15  0:00:00 ETA\n'index.html' saved\n`);
    expect(files.get('index.html')).toBe(PAGE);
    expect(await wget(['http://web'], io(files))).toEqual({ out: '', err: "wget: can't open 'index.html': File exists\n", status: 1 });
  });

  it('fails as busybox does', async () => {
    expect(await wget(['-qO-', 'http://nosuch'], io())).toEqual({ out: '', err: "wget: bad address 'nosuch'\n", status: 1 });
    expect(await wget(['-qO-', 'http://empty'], io())).toEqual({ out: '', err: "wget: can't connect to remote host (10.96.0.7): Connection refused\n", status: 1 });
    expect(await wget(['-O-', 'http://web/missing'], io())).toEqual({ out: '', err: 'Connecting to web (10.96.0.20:80)\nwget: server returned error: HTTP/1.1 404 Not Found\n', status: 1 });
  });
});

describe('curl', () => {
  it('prints the body; -i the status line and headers; -I a HEAD', async () => {
    expect(await curl(['http://web'], io())).toEqual({ out: PAGE, err: '', status: 0 });
    expect((await curl(['-si', 'web'], io())).out).toBe(`HTTP/1.1 200 OK\r\nServer: nginx/1.27.3\r\n\r\n${PAGE}`);
    const c = io();
    expect((await curl(['-I', 'web'], c)).out).toBe('HTTP/1.1 200 OK\r\nServer: nginx/1.27.3\r\n\r\n');
    expect(c.seen[0]?.method).toBe('HEAD');
  });

  it('fails with curl\'s codes and texts, silent with -s, shown again with -sS', async () => {
    expect(await curl(['http://nosuch'], io())).toEqual({ out: '', err: 'curl: (6) Could not resolve host: nosuch\n', status: 6 });
    expect(await curl(['http://empty:8080'], io())).toEqual({ out: '', err: "curl: (7) Failed to connect to empty port 8080 after 0 ms: Couldn't connect to server\n", status: 7 });
    expect(await curl(['-s', 'http://empty'], io())).toEqual({ out: '', err: '', status: 7 });
    expect(await curl(['-sSf', 'http://web/missing'], io())).toEqual({ out: '', err: 'curl: (22) The requested URL returned error: 404\n', status: 22 });
    expect((await curl(['--bogus', 'web'], io())).status).toBe(2);
  });
});
