import type { KubeObject } from '@kemu/api';
import { CA_PROFILE, certificatePem, createCsr, generatePrivateKey, issueCertificate, templateFromProfile } from '@kemu/pki';
import { beforeAll, describe, expect, it } from 'vitest';
import { certificateError, validateCsrCreate, validateCsrStatusUpdate, validateCsrUpdate } from './certificates.ts';
import { validateSignerName } from './signer-name.ts';

let request: string;
let certPem: string;
beforeAll(async () => {
  const key = await generatePrivateKey({ algo: 'ecdsa', size: 256 });
  request = Buffer.from((await createCsr({ CN: 'x' }, key)).toString('pem')).toString('base64');
  certPem = certificatePem(await issueCertificate(templateFromProfile(CA_PROFILE, { subject: { CN: 'ca' }, publicKey: key, isCA: true, nowMs: Date.now() }), { selfKey: key }));
});

const csr = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): KubeObject => ({
  metadata: { name: 'c', uid: 'u', creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { request, signerName: 'example.com/signer', usages: ['client auth'], ...spec },
  ...(status ? { status } : {}),
});
const messages = (causes: { field?: string; message?: string }[]) => causes.map((c) => `${c.field}: ${c.message}`);

describe('validateSignerName', () => {
  it.each([
    ['example.com/signer', []],
    ['kubernetes.io/kube-apiserver-client', []],
    ['', ['s: Required value']],
    ['a/b/c', ["s: Invalid value: \"a/b/c\": must be a fully qualified domain and path of the form 'example.com/signer-name'"]],
    ['localhost/x', ['s: Invalid value: "localhost": should be a domain with at least two segments separated by dots']],
    [
      'Example.com/x',
      [
        's: Invalid value: "Example.com": validating label "Example": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\')',
      ],
    ],
  ])('%j', (name, want) => {
    expect(messages(validateSignerName('s', name))).toEqual(want);
  });
});

describe('CSR validation', () => {
  it('condition statuses: Approved/Denied/Failed only True, others any of True/False/Unknown', () => {
    const o = csr({}, { conditions: [{ type: 'Approved', status: 'False' }, { type: 'Custom', status: 'Maybe' }, { type: 'Custom', status: '' }] });
    expect(messages(validateCsrCreate(o))).toEqual([
      'status.conditions[0].status: Unsupported value: "False": supported values: "True"',
      'status.conditions[1].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"',
      'status.conditions[2].status: Required value',
      'status.conditions[2].type: Duplicate value: "Custom"',
    ]);
  });

  it('status.certificate: CERTIFICATE blocks only, without headers', () => {
    expect(certificateError(Buffer.from(certPem))).toBeUndefined();
    expect(certificateError(Buffer.alloc(0))).toBeUndefined();
    expect(certificateError(Buffer.from('-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'))).toBe('only CERTIFICATE PEM blocks are allowed, found "PRIVATE KEY"');
    expect(certificateError(Buffer.from(certPem.replace('-----\n', '-----\nProc-Type: 4,ENCRYPTED\n')))).toBe('no PEM block headers are permitted');
  });

  it('an update through the main resource may not set the certificate; /status may, once', () => {
    const old = csr({}, { conditions: [{ type: 'Approved', status: 'True' }] });
    const signed = csr({}, { conditions: [{ type: 'Approved', status: 'True' }], certificate: Buffer.from(certPem).toString('base64') });
    expect(messages(validateCsrUpdate(signed, old))).toEqual(['status.certificate: Forbidden: updates may not set certificate content']);
    expect(validateCsrStatusUpdate(signed, old)).toEqual([]);
  });

  it('tolerates what is bad but already stored (legacy signer, unknown usages)', () => {
    const old = csr({ signerName: 'kubernetes.io/legacy-unknown', usages: ['flying'] });
    expect(validateCsrUpdate(structuredClone(old), old)).toEqual([]);
    expect(messages(validateCsrCreate(old))).toEqual([
      'spec.usages[0]: Unsupported value: "flying": supported values: "any", "cert sign", "client auth", "code signing", "content commitment", "crl sign", "data encipherment", "decipher only", "digital signature", "email protection", "encipher only", "ipsec end system", "ipsec tunnel", "ipsec user", "key agreement", "key encipherment", "microsoft sgc", "netscape sgc", "ocsp signing", "s/mime", "server auth", "signing", "timestamping"',
      'spec.signerName: Invalid value: "kubernetes.io/legacy-unknown": the legacy signerName is not allowed via this API version',
    ]);
  });

  it('a request whose signature does not verify', async () => {
    const pem = Buffer.from(request, 'base64').toString();
    const [head = '', body = '', tail = ''] = pem.split(/(?<=-----\n)|(?=\n-----END)/);
    const der = Buffer.from(body.replace(/\n/g, ''), 'base64');
    const at = der.length - 5; // inside the signature
    der.writeUInt8(der.readUInt8(at) ^ 0xff, at);
    const tampered = `${head}${der.toString('base64')}${tail}`;
    const causes = messages(validateCsrCreate(csr({ request: Buffer.from(tampered).toString('base64') })));
    expect(causes).toHaveLength(1);
    expect(causes[0]).toMatch(/^spec\.request: Invalid value: \[\]byte\{0x2d, 0x2d, .*\}: (x509: ECDSA verification failure|certificate request: does not parse: .*)$/);
  });
});
