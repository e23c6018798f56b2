import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@kemu/api';
import { validateService, validateServiceUpdate } from './service.ts';

const svc = (spec: Record<string, unknown>): KubeObject => ({
  metadata: { name: 'web', namespace: 'default' },
  spec: { type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP' }], ...spec },
});
const messages = (o: KubeObject, old?: KubeObject) => (old ? validateServiceUpdate(o, old) : validateService(o)).map((c) => `${c.field}: ${c.message}`);

describe('Service clusterIPs, ipFamilies and ipFamilyPolicy (ValidateServiceClusterIPsRelatedFields)', () => {
  it.each<[string, Record<string, unknown>, string[]]>([
    ['a dual-stack pair', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00::10'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' }, []],
    ['two of one family', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', '10.96.0.11'] }, ['spec.clusterIPs: Invalid value: []string{"10.96.0.10", "10.96.0.11"}: may specify no more than one IP for each IP family']],
    ['three', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00::10', 'fd00::11'] }, ['spec.clusterIPs: Invalid value: []string{"10.96.0.10", "fd00::10", "fd00::11"}: may only hold up to 2 values', 'spec.clusterIPs: Invalid value: []string{"10.96.0.10", "fd00::10", "fd00::11"}: may specify no more than one IP for each IP family']],
    ['None and another', { clusterIP: 'None', clusterIPs: ['None', 'fd00::10'] }, ['spec.clusterIPs: Invalid value: []string{"None", "fd00::10"}: \'None\' must be the first and only value']],
    ['family mismatch', { clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ipFamilies: ['IPv6'] }, ['spec.clusterIPs[0]: Invalid value: "10.96.0.10": expected an IPv6 value as indicated by `ipFamilies[0]`']],
    ['bad family and policy', { ipFamilies: ['IPv5', 'IPv5'], ipFamilyPolicy: 'Both' }, [
      'spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"',
      'spec.ipFamilies[1]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"',
      'spec.ipFamilies[1]: Duplicate value: "IPv5"',
      'spec.ipFamilyPolicy: Unsupported value: "Both": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
    ]],
  ])('%s', (_what, spec, want) => {
    expect(messages(svc(spec))).toEqual(want);
  });

  it('dropping the secondary clusterIP needs ipFamilyPolicy SingleStack; the secondary may not change', () => {
    const old = svc({ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00::10'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' });
    expect(messages(svc({ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ipFamilyPolicy: 'RequireDualStack' }), old)).toEqual([
      'spec.ipFamilyPolicy: Invalid value: "RequireDualStack": must be set to \'SingleStack\' when releasing the secondary clusterIP',
    ]);
    expect(messages(svc({ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ipFamilyPolicy: 'SingleStack' }), old)).toEqual([]);
    expect(messages(svc({ clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10', 'fd00::11'], ipFamilies: ['IPv4', 'IPv6'], ipFamilyPolicy: 'RequireDualStack' }), old)).toEqual([
      'spec.clusterIPs[1]: Invalid value: []string{"10.96.0.10", "fd00::11"}: may not change once set',
    ]);
  });
});

describe('Service healthCheckNodePort', () => {
  it('may only be set for a LoadBalancer with externalTrafficPolicy Local', () => {
    expect(messages(svc({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 30001 }))).toEqual([]);
    expect(messages(svc({ type: 'NodePort', externalTrafficPolicy: 'Local', healthCheckNodePort: 30001 }))).toEqual([
      "spec.healthCheckNodePort: Forbidden: may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
    ]);
    expect(messages(svc({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', healthCheckNodePort: 70000 }))).toEqual(['spec.healthCheckNodePort: Invalid value: 70000: must be between 1 and 65535, inclusive']);
  });
});
