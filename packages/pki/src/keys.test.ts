// Keys in every form openssl and cfssl write them, read back; keys written as cfssl writes them, read by openssl.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generatePrivateKey, parsePrivateKeyPem, parsePublicKeyPem, privateKeyPem, publicKeyPem, sameKey, signingAlgorithm, toSigningKey } from './keys.ts';
import { PkiError } from './errors.ts';
import { noOpenssl, openssl } from './testing/openssl.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-keys-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe.skipIf(noOpenssl)('keys made by openssl', () => {
  const forms: [name: string, args: string[], firstBlock: string, alg: string][] = [
    ['genrsa (PKCS#8, as openssl 3 writes sa.key)', ['genrsa', '2048'], 'PRIVATE KEY', 'RSASSA-PKCS1-v1_5'],
    ['genrsa -traditional (PKCS#1, as cfssljson writes)', ['genrsa', '-traditional', '2048'], 'RSA PRIVATE KEY', 'RSASSA-PKCS1-v1_5'],
    ['ecparam -genkey (SEC1 after EC PARAMETERS)', ['ecparam', '-genkey', '-name', 'prime256v1'], 'EC PARAMETERS', 'ECDSA'],
    ['genpkey EC P-384 (PKCS#8)', ['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384'], 'PRIVATE KEY', 'ECDSA'],
  ];
  it.each(forms)('%s: parses, matches its public key, and signs', async (_name, args, firstBlock, alg) => {
    const pem = openssl(args);
    expect(pem.split('\n')[0]).toBe(`-----BEGIN ${firstBlock}-----`);
    const key = parsePrivateKeyPem(pem);
    const f = path.join(dir, 'k.pem');
    fs.writeFileSync(f, pem);
    const pub = parsePublicKeyPem(openssl(['pkey', '-in', f, '-pubout']));
    expect(sameKey(key, pub)).toBe(true);
    expect(signingAlgorithm(key).name).toBe(alg);
    expect((await toSigningKey(key)).type).toBe('private');
  });

  it('refuses an encrypted key, and a file with no key, naming the file', () => {
    const enc = openssl(['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-aes256', '-pass', 'pass:secret']);
    expect(() => parsePrivateKeyPem(enc, 'ca-key.pem')).toThrow(new PkiError('ca-key.pem: encrypted private keys are not supported (decrypt it with openssl pkey first)'));
    expect(() => parsePrivateKeyPem('hello', 'x.pem')).toThrow(/^x\.pem: no private key found/);
  });

  it('writes RSA keys as PKCS#1 and EC keys as SEC1 (cfssljson), or PKCS#8; openssl reads all of them', async () => {
    const rsa = await generatePrivateKey({ algo: 'rsa', size: 2048 });
    const ec = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
    const cases: [string, string][] = [
      [privateKeyPem(rsa), 'RSA PRIVATE KEY'],
      [privateKeyPem(ec), 'EC PRIVATE KEY'],
      [privateKeyPem(rsa, 'pkcs8'), 'PRIVATE KEY'],
    ];
    for (const [pem, type] of cases) {
      expect(pem.split('\n')[0]).toBe(`-----BEGIN ${type}-----`);
      const f = path.join(dir, 'w.pem');
      fs.writeFileSync(f, pem);
      expect(openssl(['pkey', '-in', f, '-pubout']).trim()).toBe(publicKeyPem(parsePrivateKeyPem(pem)).trim());
    }
  });
});

it('refuses RSA keys under 2048 bits', async () => {
  await expect(generatePrivateKey({ algo: 'rsa', size: 1024 })).rejects.toThrow('RSA key size 1024 is too small (at least 2048)');
});
