// certificates.k8s.io/v1 CertificateSigningRequest validation (pkg/apis/certificates/validation): the request
// is a PEM CERTIFICATE REQUEST whose signature verifies, usages are known and not repeated, the signer name is
// qualified (legacy-unknown only on old objects), expirationSeconds ≥ 600, Approved/Failed/Denied are only
// "True", Approved and Denied exclude each other, and status.certificate holds only CERTIFICATE blocks. Updates
// may not remove those conditions; only /approval may change Approved/Denied and only /status the certificate.
// What is bad but already stored is tolerated, as Kubernetes' getValidationOptions does.
import crypto from 'node:crypto';
import { SIGNER_LEGACY_UNKNOWN, type KubeObject, type StatusCause } from '@kemu/api';
import { decodePem, parseCsrDerSync, PkiError } from '@kemu/pki';
import { asArray, child, fieldErrors, index, isRecord, jsonEqual } from './field.ts';
import { GoValue } from './goformat.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './meta.ts';
import { validateSignerName } from './signer-name.ts';

/** certificates.allValidUsages, sorted as sets.String.List() prints them. */
export const VALID_USAGES: readonly string[] = [
  'any',
  'cert sign',
  'client auth',
  'code signing',
  'content commitment',
  'crl sign',
  'data encipherment',
  'decipher only',
  'digital signature',
  'email protection',
  'encipher only',
  'ipsec end system',
  'ipsec tunnel',
  'ipsec user',
  'key agreement',
  'key encipherment',
  'microsoft sgc',
  'netscape sgc',
  'ocsp signing',
  's/mime',
  'server auth',
  'signing',
  'timestamping',
];
const VALID = new Set(VALID_USAGES);
const TRUE_ONLY_CONDITIONS = new Set(['Approved', 'Denied', 'Failed']);

interface Options {
  allowSettingApprovalConditions: boolean;
  allowSettingCertificate: boolean;
  allowBothApprovedAndDenied: boolean;
  allowLegacySignerName: boolean;
  allowDuplicateConditionTypes: boolean;
  allowEmptyConditionType: boolean;
  allowArbitraryCertificate: boolean;
  allowUnknownUsages: boolean;
  allowDuplicateUsages: boolean;
}

type Obj = Record<string, unknown>;
const rec = (v: unknown): Obj => (isRecord(v) ? v : {});
const text = (v: unknown): string => (typeof v === 'string' ? v : '');

export function specOf(o: KubeObject): Obj {
  return rec(o.spec);
}
export function conditionsOf(o: KubeObject | undefined): Obj[] {
  return (asArray(rec(o?.status).conditions) ?? []).map(rec);
}
/** The bytes of a []byte field (base64 in JSON); undefined when absent. */
export function bytesOf(v: unknown): Buffer | undefined {
  return typeof v === 'string' ? Buffer.from(v, 'base64') : undefined;
}
const usagesOf = (o: KubeObject): unknown[] => asArray(specOf(o).usages) ?? [];
const certificateOf = (o: KubeObject | undefined): Buffer => bytesOf(rec(o?.status).certificate) ?? Buffer.alloc(0);

/** How Go's %#v prints a []byte (nil when the field is absent). */
function goBytes(b: Buffer | undefined): GoValue {
  if (b === undefined) return new GoValue('[]byte(nil)');
  return new GoValue(`[]byte{${[...b].map((x) => `0x${x.toString(16)}`).join(', ')}}`);
}

/** certificates.ParseCSR + CheckSignature: the first PEM block must be a CERTIFICATE REQUEST that verifies. */
export function csrRequestError(request: Buffer | undefined): string | undefined {
  const first = decodePem((request ?? Buffer.alloc(0)).toString('latin1'))[0];
  if (!first || first.type !== 'CERTIFICATE REQUEST') return 'PEM block type must be CERTIFICATE REQUEST';
  try {
    parseCsrDerSync(first.der);
    return undefined;
  } catch (e) {
    if (e instanceof PkiError) return e.message;
    throw e;
  }
}

/** validateCertificate: only CERTIFICATE blocks, without headers, each parsing; at least one. */
export function certificateError(pem: Buffer): string | undefined {
  if (pem.length === 0) return undefined;
  const blocks = decodePem(pem.toString('latin1'));
  for (const b of blocks) {
    if (b.type !== 'CERTIFICATE') return `only CERTIFICATE PEM blocks are allowed, found ${JSON.stringify(b.type)}`;
    if (b.headers) return 'no PEM block headers are permitted';
    try {
      new crypto.X509Certificate(b.der);
    } catch {
      return 'x509: malformed certificate';
    }
  }
  return blocks.length === 0 ? 'must contain at least one CERTIFICATE PEM block' : undefined;
}

function hasDuplicates(values: unknown[]): boolean {
  return new Set(values).size !== values.length;
}

function options(o: KubeObject, old: KubeObject | undefined): Options {
  const oldTypes = conditionsOf(old).map((c) => c.type);
  return {
    allowSettingApprovalConditions: false,
    allowSettingCertificate: false,
    allowBothApprovedAndDenied: old !== undefined && oldTypes.includes('Approved') && oldTypes.includes('Denied'),
    allowLegacySignerName: old !== undefined && specOf(old).signerName === SIGNER_LEGACY_UNKNOWN,
    allowDuplicateConditionTypes: old !== undefined && hasDuplicates(oldTypes),
    allowEmptyConditionType: old !== undefined && oldTypes.some((t) => text(t) === ''),
    allowArbitraryCertificate: old !== undefined && (certificateOf(o).equals(certificateOf(old)) || certificateError(certificateOf(old)) !== undefined),
    allowUnknownUsages: old !== undefined && usagesOf(old).some((u) => !VALID.has(text(u))),
    allowDuplicateUsages: old !== undefined && hasDuplicates(usagesOf(old)),
  };
}

function validateConditions(o: KubeObject, opts: Options): StatusCause[] {
  const path = 'status.conditions';
  const out: StatusCause[] = [];
  const seen = new Set<string>();
  let approved = false;
  let denied = false;
  conditionsOf(o).forEach((c, i) => {
    const at = index(path, i);
    const type = text(c.type);
    const status = text(c.status);
    if (!opts.allowEmptyConditionType && type === '') out.push(fieldErrors.required(child(at, 'type')));
    const allowed = TRUE_ONLY_CONDITIONS.has(type) ? ['True'] : ['False', 'True', 'Unknown'];
    if (status === '') out.push(fieldErrors.required(child(at, 'status')));
    else if (!allowed.includes(status)) out.push(fieldErrors.notSupported(child(at, 'status'), status, allowed));
    if (!opts.allowBothApprovedAndDenied) {
      if (type === 'Approved') {
        approved = true;
        if (denied) out.push(fieldErrors.invalid(child(at, 'type'), type, 'Approved and Denied conditions are mutually exclusive'));
      } else if (type === 'Denied') {
        denied = true;
        if (approved) out.push(fieldErrors.invalid(child(at, 'type'), type, 'Approved and Denied conditions are mutually exclusive'));
      }
    }
    if (!opts.allowDuplicateConditionTypes) {
      if (seen.has(type)) out.push(fieldErrors.duplicate(child(at, 'type'), type));
      seen.add(type);
    }
  });
  return out;
}

function validate(o: KubeObject, opts: Options): StatusCause[] {
  // Any name will do: ValidateCertificateRequestName accepts everything.
  const out = validateObjectMeta(o.metadata, { namespaced: false, nameFn: () => [] });
  const spec = specOf(o);
  const request = bytesOf(spec.request);
  const bad = csrRequestError(request);
  if (bad) out.push(fieldErrors.invalid('spec.request', goBytes(request), bad));
  const usages = usagesOf(o);
  if (usages.length === 0) out.push(fieldErrors.required('spec.usages'));
  if (!opts.allowUnknownUsages)
    usages.forEach((u, i) => {
      if (!VALID.has(text(u))) out.push(fieldErrors.notSupported(index('spec.usages', i), text(u), VALID_USAGES));
    });
  if (!opts.allowDuplicateUsages) {
    const seen = new Set<string>();
    usages.forEach((u, i) => {
      if (seen.has(text(u))) out.push(fieldErrors.duplicate(index('spec.usages', i), text(u)));
      seen.add(text(u));
    });
  }
  const signerName = text(spec.signerName);
  if (!opts.allowLegacySignerName && signerName === SIGNER_LEGACY_UNKNOWN)
    out.push(fieldErrors.invalid('spec.signerName', signerName, 'the legacy signerName is not allowed via this API version'));
  else out.push(...validateSignerName('spec.signerName', signerName));
  const exp = spec.expirationSeconds;
  if (typeof exp === 'number' && exp < 600) out.push(fieldErrors.invalid('spec.expirationSeconds', exp, 'may not specify a duration less than 600 seconds (10 minutes)'));
  out.push(...validateConditions(o, opts));
  if (!opts.allowArbitraryCertificate) {
    const err = certificateError(certificateOf(o));
    if (err) out.push(fieldErrors.invalid('status.certificate', '<certificate data>', err));
  }
  return out;
}

const ALL_TERMINAL = ['Approved', 'Denied', 'Failed'];
const APPROVAL = ['Approved', 'Denied'];
const ofType = (o: KubeObject, t: string): Obj[] => conditionsOf(o).filter((c) => c.type === t);

/** A short old → new account of a changed condition (Kubernetes prints cmp.Diff here). */
function conditionDiff(before: Obj[], after: Obj[]): string {
  return `-\t${JSON.stringify(before)}\n+\t${JSON.stringify(after)}`;
}

function validateUpdate(o: KubeObject, old: KubeObject, opts: Options): StatusCause[] {
  const out = validate(o, opts);
  const meta = validateObjectMetaUpdate(o.metadata, old.metadata, { namespaced: false, nameFn: () => [] });
  for (const t of ALL_TERMINAL) {
    if (ofType(o, t).length < ofType(old, t).length) out.push(fieldErrors.forbidden('status.conditions', `updates may not remove a condition of type ${JSON.stringify(t)}`));
  }
  if (!opts.allowSettingApprovalConditions) {
    for (const t of APPROVAL) {
      const before = ofType(old, t);
      const after = ofType(o, t);
      if (after.length < before.length) continue; // refused above
      if (after.length > before.length) out.push(fieldErrors.forbidden('status.conditions', `updates may not add a condition of type ${JSON.stringify(t)}`));
      else if (!jsonEqual(before, after))
        out.push(fieldErrors.forbidden('status.conditions', `updates may not modify a condition of type ${JSON.stringify(t)}\n${conditionDiff(before, after)}`));
    }
  }
  if (!certificateOf(o).equals(certificateOf(old))) {
    if (!opts.allowSettingCertificate) out.push(fieldErrors.forbidden('status.certificate', 'updates may not set certificate content'));
    else if (certificateOf(old).length > 0) out.push(fieldErrors.forbidden('status.certificate', 'updates may not modify existing certificate content'));
  }
  // Metadata errors come last, as Kubernetes appends them; validate() already reported the ones both find.
  const seen = new Set(out.map((c) => `${c.field ?? ''}\0${c.message ?? ''}`));
  return [...out, ...meta.filter((c) => !seen.has(`${c.field ?? ''}\0${c.message ?? ''}`))];
}

export function validateCsrCreate(o: KubeObject): StatusCause[] {
  return validate(o, options(o, undefined));
}

export function validateCsrUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  return validateUpdate(o, old, options(o, old));
}

export function validateCsrStatusUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  return validateUpdate(o, old, { ...options(o, old), allowSettingCertificate: true });
}

export function validateCsrApprovalUpdate(o: KubeObject, old: KubeObject): StatusCause[] {
  return validateUpdate(o, old, { ...options(o, old), allowSettingApprovalConditions: true });
}
