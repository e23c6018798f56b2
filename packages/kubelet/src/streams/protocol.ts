// The remotecommand WebSocket protocols (k8s.io/apimachinery's wsstream and the kubelet's remotecommand
// websocket.go, KEP-4006's v5): every message is one channel's data, its first byte the channel number
// (base64 variants: an ASCII digit, then base64 text). Channels: stdin 0, stdout 1, stderr 2, error 3,
// resize 4 (v3+, JSON {Width,Height}); v5 adds the close signal, channel 255 carrying the number of the
// channel the client has finished writing (stdin). The error channel carries the command's outcome: v4+ a
// metav1.Status (Success, or Failure with reason NonZeroExitCode and an ExitCode cause), older ones its text.

export const STDIN = 0;
export const STDOUT = 1;
export const STDERR = 2;
export const ERROR = 3;
export const RESIZE = 4;
/** v5: a client's "I am done writing channel N" message. */
export const CLOSE = 255;

export interface Protocol {
  name: string;
  /** 1 (channel.k8s.io) … 5. */
  version: number;
  base64: boolean;
}

/** Served protocols, in the kubelet's order of preference. */
export const PROTOCOLS: readonly Protocol[] = [
  { name: 'v5.channel.k8s.io', version: 5, base64: false },
  { name: 'v4.channel.k8s.io', version: 4, base64: false },
  { name: 'v4.base64.channel.k8s.io', version: 4, base64: true },
  { name: 'v3.channel.k8s.io', version: 3, base64: false },
  { name: 'v2.channel.k8s.io', version: 2, base64: false },
  { name: 'channel.k8s.io', version: 1, base64: false },
  { name: 'base64.channel.k8s.io', version: 1, base64: true },
];

/** The protocol to speak for a client's Sec-WebSocket-Protocol offer; none offered is channel.k8s.io (wsstream's default). */
export function negotiate(offered: readonly string[]): Protocol | undefined {
  if (offered.length === 0) return PROTOCOLS.find((p) => p.name === 'channel.k8s.io');
  for (const p of PROTOCOLS) if (offered.includes(p.name)) return p;
  return undefined;
}

/** One outgoing message: binary, or for base64 protocols text. */
export function encodeFrame(p: Protocol, channel: number, data: Buffer | string): Buffer | string {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  if (p.base64) return String.fromCharCode(48 + channel) + bytes.toString('base64');
  return Buffer.concat([Buffer.from([channel]), bytes]);
}

export type Frame = { channel: number; data: Buffer };

/** Reads an incoming message; undefined for an empty one (wsstream ignores those). */
export function decodeFrame(p: Protocol, message: Buffer, isBinary: boolean): Frame | undefined {
  if (message.length === 0) return undefined;
  if (p.base64 && !isBinary) {
    const text = message.toString('latin1');
    return { channel: text.charCodeAt(0) - 48, data: Buffer.from(text.slice(1), 'base64') };
  }
  return { channel: message[0] ?? 0, data: message.subarray(1) };
}

export interface TerminalSize {
  width: number;
  height: number;
}

/** A resize message ({"Width":80,"Height":24}); undefined when it is not one. */
export function parseResize(data: Buffer): TerminalSize | undefined {
  try {
    const v: unknown = JSON.parse(data.toString('utf8'));
    if (typeof v !== 'object' || v === null) return undefined;
    const { Width, Height } = v as Record<string, unknown>;
    if (typeof Width !== 'number' || typeof Height !== 'number') return undefined;
    return { width: Width, height: Height };
  } catch {
    return undefined;
  }
}

/** The CRI's ExitError text: `error executing command [sh -c exit 3], exit code 3` (Go's %v of a []string). */
export function exitErrorText(argv: readonly string[], code: number): string {
  return `error executing command [${argv.join(' ')}], exit code ${code}`;
}

/** What the error channel carries when the command ends: undefined for v1–v3 on success (nothing is sent). */
export function outcomeMessage(p: Protocol, argv: readonly string[], code: number): string | undefined {
  if (p.version >= 4) {
    if (code === 0) return JSON.stringify({ metadata: {}, status: 'Success' });
    return JSON.stringify({
      metadata: {},
      status: 'Failure',
      message: `command terminated with non-zero exit code: ${exitErrorText(argv, code)}`,
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
    });
  }
  return code === 0 ? undefined : `command terminated with non-zero exit code: ${exitErrorText(argv, code)}`;
}

/** A failure that is not an exit code (the runtime could not start the command), as the error channel carries it. */
export function failureMessage(p: Protocol, message: string): string {
  if (p.version >= 4) return JSON.stringify({ metadata: {}, status: 'Failure', message });
  return message;
}
