// One HTTPS GET for tests of secure ports: verifying the server against `ca` (by the name localhost) or not at all
// (as `curl -k`), with an optional client certificate, bearer token and extra headers.
import https from 'node:https';

export interface HttpsGetOptions {
  cred?: { cert: string; key: string };
  token?: string;
  headers?: Record<string, string>;
  /** Verify the server with this CA; without it the server is not verified. */
  ca?: string;
}

export interface HttpsReply {
  status: number;
  type: string;
  body: string;
}

export function httpsGet(url: string, o: HttpsGetOptions = {}): Promise<HttpsReply> {
  return new Promise((resolve, reject) => {
    const req = https.get(
      url,
      {
        servername: 'localhost',
        ...(o.ca ? { ca: o.ca } : { rejectUnauthorized: false }),
        ...(o.cred ? { cert: o.cred.cert, key: o.cred.key } : {}),
        headers: { ...(o.token ? { authorization: `Bearer ${o.token}` } : {}), ...o.headers },
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
      },
    );
    req.on('error', reject);
  });
}
