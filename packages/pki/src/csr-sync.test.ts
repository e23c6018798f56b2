import { describe, expect, it } from 'vitest';
import { createCsr } from './csr.ts';
import { csrSignatureValid, parseCsrDerSync } from './csr-sync.ts';
import { generatePrivateKey } from './keys.ts';
import { PkiError } from './errors.ts';

describe('parseCsrDerSync', () => {
  it('reads ECDSA and RSA requests and checks their signatures', async () => {
    for (const key of [await generatePrivateKey({ algo: 'ecdsa', size: 256 }), await generatePrivateKey({ algo: 'rsa', size: 2048 })]) {
      const csr = await createCsr({ CN: 'jane', O: ['devs'] }, key);
      const parsed = parseCsrDerSync(new Uint8Array(csr.rawData));
      expect(parsed.subject.CN).toBe('jane');
      expect(parsed.subject.O).toEqual(['devs']);
      expect(csrSignatureValid(parsed.csr, parsed.publicKey)).toBe(true);
    }
  });

  it("refuses a tampered request with Go's CheckSignature message and garbage as not parsing", async () => {
    const csr = await createCsr({ CN: 'jane' }, await generatePrivateKey({ algo: 'ecdsa', size: 256 }));
    const der = Buffer.from(csr.rawData);
    const at = der.indexOf(Buffer.from('jane'));
    der[at] = 'J'.charCodeAt(0);
    expect(() => parseCsrDerSync(der)).toThrow('x509: ECDSA verification failure');
    expect(() => parseCsrDerSync(Buffer.from('nope'))).toThrow(PkiError);
  });
});
