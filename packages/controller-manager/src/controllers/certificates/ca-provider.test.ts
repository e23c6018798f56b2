import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@kemu/base';
import { CaProvider } from './ca-provider.ts';
import { writeCa } from './testing.ts';

let dir: string;
let a: Awaited<ReturnType<typeof writeCa>>;
let b: Awaited<ReturnType<typeof writeCa>>;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-caprovider-'));
  a = await writeCa(dir, 'a', Date.now());
  b = await writeCa(dir, 'b', Date.now());
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};

describe('CaProvider', () => {
  it("refuses files that do not make a CA, with Kubernetes' messages", () => {
    const missing = path.join(dir, 'nope.pem');
    expect(() => new CaProvider(missing, a.keyFile, silentLogger()).current()).toThrow(`error reading CA cert file "${missing}": open ${missing}: no such file or directory`);
    expect(() => new CaProvider(a.certFile, b.keyFile, silentLogger()).current()).toThrow(`error reading CA cert file "${a.certFile}": tls: private key does not match public key`);
    const two = file('two.pem', fs.readFileSync(a.certFile, 'utf8') + fs.readFileSync(b.certFile, 'utf8'));
    expect(() => new CaProvider(two, a.keyFile, silentLogger()).current()).toThrow(`error reading CA cert file "${two}": expected 1 certificate, found 2`);
  });

  it('keeps the last good CA when the files change into something that does not load, and takes the next good one', () => {
    const cert = file('rot.pem', fs.readFileSync(a.certFile, 'utf8'));
    const key = file('rot-key.pem', fs.readFileSync(a.keyFile, 'utf8'));
    const p = new CaProvider(cert, key, silentLogger());
    expect(p.current().cert.subject).toBe('CN=a');
    fs.writeFileSync(cert, fs.readFileSync(b.certFile)); // the key still a's: a mismatched pair
    expect(p.refresh()).toBe(false);
    expect(p.current().cert.subject).toBe('CN=a');
    fs.writeFileSync(key, fs.readFileSync(b.keyFile));
    expect(p.refresh()).toBe(true);
    expect(p.current().cert.subject).toBe('CN=b');
  });
});
