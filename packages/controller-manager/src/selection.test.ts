import { describe, expect, it } from 'vitest';
import type { ControllerDescriptor } from './controller.ts';
import { selectControllers, ControllerSelectionError } from './selection.ts';
import { parseOptions, validateOptions } from './options.ts';

const d = (name: string, enabledByDefault: boolean, aliases: string[] = []): ControllerDescriptor => ({
  name,
  serviceAccountName: name,
  aliases,
  enabledByDefault,
  create: () => {
    throw new Error('not used');
  },
});
const all = [d('a-controller', true, ['a']), d('b-controller', true, ['b']), d('c-controller', false, ['c'])];
const pick = (flag: string[]) => selectControllers(flag, all).map((x) => x.name);

describe('selectControllers (--controllers)', () => {
  it.each([
    [['*'], ['a-controller', 'b-controller']],
    [['*', '-b'], ['a-controller']],
    [['*', 'c'], ['a-controller', 'b-controller', 'c-controller']],
    [['a'], ['a-controller']],
    [['-a', '*'], ['b-controller']],
    [['c-controller'], ['c-controller']],
    [[], []],
  ])('%j → %j', (flag, want) => expect(pick(flag)).toEqual(want));

  it('rejects unknown names like Kubernetes', () => {
    expect(() => pick(['*', 'nope'])).toThrow(ControllerSelectionError);
    expect(() => pick(['-nope'])).toThrow('"nope" is not in the list of known controllers');
  });
});

describe('options', () => {
  it('has Kubernetes defaults', () => {
    const o = parseOptions([]);
    expect(o['leader-elect']).toBe(true);
    expect(o['leader-elect-lease-duration']).toBe(15_000);
    expect(o['leader-elect-renew-deadline']).toBe(10_000);
    expect(o['leader-elect-retry-period']).toBe(2_000);
    expect(o['leader-elect-resource-name']).toBe('kube-controller-manager');
    expect(o['secure-port']).toBe(10257);
    expect(o.controllers).toEqual(['*']);
    expect(o['node-monitor-grace-period']).toBe(50_000);
    expect(o['kube-api-qps']).toBe(20);
  });
  it('validates leader election timing', () => {
    const o = parseOptions(['--master=http://127.0.0.1:1', '--leader-elect-lease-duration=1s', '--leader-elect-renew-deadline=2s']);
    expect(validateOptions(o)).toContain('leaseDuration must be greater than renewDeadline');
    expect(() => parseOptions(['--bogus'])).toThrow('unknown flag: --bogus');
  });
});
