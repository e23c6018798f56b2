// PEM blocks (RFC 7468) as Go's encoding/pem reads them: text between blocks is ignored, headers are skipped.

export interface PemBlock {
  type: string;
  der: Buffer;
  /** The block had RFC 1421 headers (Proc-Type: …), which some readers refuse (Kubernetes' status.certificate). */
  headers?: true;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

export function decodePem(text: string): PemBlock[] {
  const out: PemBlock[] = [];
  for (const m of text.matchAll(BLOCK)) {
    const lines = (m[2] ?? '').split(/\r?\n/);
    const data = lines.filter((line) => !line.includes(':')); // RFC 1421 headers such as Proc-Type
    const body = data.join('');
    const headers = data.length !== lines.length;
    out.push({ type: m[1] ?? '', der: Buffer.from(body, 'base64'), ...(headers ? { headers: true as const } : {}) });
  }
  return out;
}

export function encodePem(type: string, der: Uint8Array | ArrayBuffer): string {
  const b64 = Buffer.from(der instanceof ArrayBuffer ? new Uint8Array(der) : der).toString('base64');
  const lines = b64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${type}-----\n${lines.join('\n')}\n-----END ${type}-----\n`;
}
