import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame, negotiate, outcomeMessage, parseResize, PROTOCOLS } from './protocol.ts';

const v = (name: string) => PROTOCOLS.find((p) => p.name === name)!;

describe('remotecommand WebSocket protocols', () => {
  it('negotiates the newest offered protocol, channel.k8s.io when none is offered', () => {
    expect(negotiate(['v4.channel.k8s.io', 'v5.channel.k8s.io'])?.name).toBe('v5.channel.k8s.io');
    expect(negotiate(['v4.channel.k8s.io', 'v3.channel.k8s.io'])?.name).toBe('v4.channel.k8s.io');
    expect(negotiate([])?.name).toBe('channel.k8s.io');
    expect(negotiate(['SPDY/3.1'])).toBeUndefined();
  });

  it('frames a channel byte before the data (base64 variants: a digit and base64 text)', () => {
    expect(encodeFrame(v('v5.channel.k8s.io'), 1, 'hi')).toEqual(Buffer.from([1, 104, 105]));
    expect(encodeFrame(v('v4.base64.channel.k8s.io'), 2, 'hi')).toBe('2aGk=');
    expect(decodeFrame(v('v5.channel.k8s.io'), Buffer.from([255, 0]), true)).toEqual({ channel: 255, data: Buffer.from([0]) });
    expect(decodeFrame(v('v4.base64.channel.k8s.io'), Buffer.from('0aGk='), false)).toEqual({ channel: 0, data: Buffer.from('hi') });
    expect(decodeFrame(v('v4.channel.k8s.io'), Buffer.alloc(0), true)).toBeUndefined();
  });

  it('reads resize messages', () => {
    expect(parseResize(Buffer.from('{"Width":80,"Height":24}'))).toEqual({ width: 80, height: 24 });
    expect(parseResize(Buffer.from('nope'))).toBeUndefined();
  });

  it('writes the outcome as the kubelet does: a Status from v4 on, the text before', () => {
    expect(outcomeMessage(v('v4.channel.k8s.io'), ['sh', '-c', 'exit 0'], 0)).toBe('{"metadata":{},"status":"Success"}');
    expect(JSON.parse(outcomeMessage(v('v5.channel.k8s.io'), ['sh', '-c', 'exit 3'], 3) ?? '')).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '3' }] },
    });
    expect(outcomeMessage(v('v3.channel.k8s.io'), ['true'], 0)).toBeUndefined();
    expect(outcomeMessage(v('channel.k8s.io'), ['false'], 1)).toBe('command terminated with non-zero exit code: error executing command [false], exit code 1');
  });
});
