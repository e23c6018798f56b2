import { describe, expect, it } from 'vitest';
import { isLongRunning } from './long-running.ts';

describe('isLongRunning', () => {
  it.each([
    ['/api/v1/namespaces/default/pods?watch=true', true],
    ['/api/v1/namespaces/default/pods?labelSelector=a&watch=1', true],
    ['/api/v1/namespaces/default/pods?watch=True', true], // the Python client's spelling: any value but 0/false
    ['/api/v1/watch/namespaces/default/pods', true],
    ['/apis/apps/v1/watch/deployments', true],
    ['/api/v1/namespaces/default/pods/p/log', true],
    ['/api/v1/namespaces/default/pods/p/log?follow=true', true],
    ['/api/v1/namespaces/default/pods/p/exec?command=ls', true],
    ['/api/v1/namespaces/default/pods/p/attach', true],
    ['/api/v1/namespaces/default/pods/p/portforward', true],
    ['/api/v1/nodes/n/proxy/metrics', true],
    ['/api/v1/namespaces/default/services/s:80/proxy/', true],
    ['/api/v1/namespaces/default/pods?watch=false', false],
    ['/api/v1/namespaces/default/pods?watch=0', false],
    ['/api/v1/namespaces/default/pods', false],
    ['/api/v1/namespaces/default/configmaps/watch', false],
    ['/api/v1/namespaces/default/pods/p/status', false],
    ['/apis/apps/v1/namespaces/default/deployments/d/scale', false],
    ['/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dlog', false],
  ])('%s → %s', (url, want) => {
    expect(isLongRunning(url)).toBe(want);
  });
});

describe('isLongRunning by method', () => {
  it('a watch= query makes a watch only of a GET: a write with one is counted and timed like any write', () => {
    expect(isLongRunning('/api/v1/namespaces/default/configmaps?watch=1', 'POST')).toBe(false);
    expect(isLongRunning('/api/v1/namespaces/default/configmaps/c?watch=true', 'PUT')).toBe(false);
    expect(isLongRunning('/api/v1/namespaces/default/pods/p/exec?command=ls', 'POST')).toBe(true);
  });
});

describe('isLongRunning by position', () => {
  it.each([
    ['/api/v1/namespaces/default/configmaps/log', false],
    ['/api/v1/namespaces/log/configmaps', false],
    ['/api/v1/nodes/exec', false],
    ['/api/v1/nodes/n/proxy', true],
    ['/api/v1/proxy/nodes/n/metrics', true],
  ])('%s → %s', (url, want) => {
    expect(isLongRunning(url)).toBe(want);
  });
});
