import { describe, expect, it } from 'vitest';
import { parseAddress, parseNodeGroupSpec } from './options.ts';

describe('--nodes', () => {
  it('parses min:max:name', () => {
    expect(parseNodeGroupSpec('1:5:pool')).toEqual({ min: 1, max: 5, name: 'pool' });
  });
  it('refuses malformed values with the autoscaler\'s messages', () => {
    expect(() => parseNodeGroupSpec('1:5')).toThrow('failed to set nodes: incorrect nodes specification: 1:5');
    expect(() => parseNodeGroupSpec('a:5:pool')).toThrow('failed to set min size: a, expected integer');
    expect(() => parseNodeGroupSpec('3:2:pool')).toThrow('max size must be greater or equal to min size');
  });
  it('--address takes host:port or :port', () => {
    expect(parseAddress(':8085')).toEqual({ host: '0.0.0.0', port: 8085 });
    expect(parseAddress('127.0.0.5:0')).toEqual({ host: '127.0.0.5', port: 0 });
  });
});
