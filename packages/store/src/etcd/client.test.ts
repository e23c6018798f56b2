import * as grpc from '@grpc/grpc-js';
import { describe, expect, it } from 'vitest';
import { goMessage, notSent } from './client.ts';

const status = (code: grpc.status, details: string) => Object.assign(new Error(`${code} ${grpc.status[code]}: ${details}`), { code, details });

describe('goMessage', () => {
  it("words etcd's answers as kube-apiserver passes them on: etcd's own errors as their text, others as grpc-go prints them", () => {
    expect(goMessage(status(grpc.status.UNAVAILABLE, 'etcdserver: request timed out'))).toBe('etcdserver: request timed out');
    expect(goMessage(status(grpc.status.RESOURCE_EXHAUSTED, 'etcdserver: mvcc: database space exceeded'))).toBe('etcdserver: mvcc: database space exceeded');
    expect(goMessage(status(grpc.status.UNKNOWN, 'context deadline exceeded'))).toBe('rpc error: code = Unknown desc = context deadline exceeded');
    expect(goMessage(status(grpc.status.DEADLINE_EXCEEDED, 'Deadline exceeded'))).toBe('rpc error: code = DeadlineExceeded desc = Deadline exceeded');
    expect(goMessage(new Error('plain'))).toBe('plain');
  });
});

describe('notSent', () => {
  it('is true only for a call grpc-js failed before sending (no connection to the member)', () => {
    expect(notSent(status(grpc.status.UNAVAILABLE, 'No connection established. Last error: Error: connect ECONNREFUSED 127.0.0.1:2379'))).toBe(true);
    expect(notSent(status(grpc.status.UNAVAILABLE, 'etcdserver: request timed out'))).toBe(false);
    expect(notSent(status(grpc.status.UNAVAILABLE, 'Connection dropped'))).toBe(false);
  });
});
