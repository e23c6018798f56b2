// --audit-policy-file and --audit-log-path on a real kube-apiserver process: the log holds one jq-readable
// audit.k8s.io/v1 Event per line; a bad policy file stops start-up with exit 1 and Kubernetes' message;
// kemu up's default policy loads and keeps health checks and Lease renewals out.
import { BIN, startProcess, waitFor } from '@kemu/base/testing/processes';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { evaluate, loadPolicyFile } from '../../packages/apiserver/src/audit/policy.ts';
import { requestAttributes } from '../../packages/apiserver/src/audit/request-info.ts';
import { writeDefaultAuditPolicy } from '../../packages/kemu/src/audit-policy.ts';
import { api, startReplica, type Replica } from './cluster.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'kemu-audit-'));
let replica: Replica | undefined;
afterAll(async () => {
  await replica?.proc.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

describe('kube-apiserver audit flags', () => {
  it('writes one JSON Event per line for what the policy audits', async () => {
    const policy = path.join(dir, 'policy.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: ["/readyz*"]\n- level: Request\n  resources: [{group: "", resources: [configmaps]}]\n');
    const log = path.join(dir, 'logs', 'audit.log');
    replica = await startReplica(path.join(dir, 'state.db'), 'apiserver-audit', [`--audit-policy-file=${policy}`, `--audit-log-path=${log}`]);
    const created = await api(`${replica.url}/api/v1/namespaces/default/configmaps`, 'POST', { metadata: { name: 'audited' }, data: { k: 'v' } });
    expect(created.status).toBe(201);
    const lines = await waitFor('the create in the log', () => {
      const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
      return text.includes('"stage":"ResponseComplete"') && text.includes('"name":"audited"') ? text : undefined;
    });
    const stages = execFileSync('jq', ['-r', 'select(.objectRef.resource == "configmaps" and .verb == "create") | "\\(.stage) \\(.level) \\(.user.username) \\(.responseStatus.code // "-") \\(.requestObject.data.k // "-")"', log], { encoding: 'utf8' });
    expect(stages.trim().split('\n')).toEqual(['RequestReceived Request system:unsecured - -', 'ResponseComplete Request system:unsecured 201 v']);
    // /readyz polling (None) and the replica's own bootstrap writes to other resources leave no line.
    expect(lines).not.toContain('/readyz');
  }, 60_000);

  it('exits 1 on a bad policy file, naming the field and the file', async () => {
    const policy = path.join(dir, 'bad.yaml');
    writeFileSync(policy, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Loud\n');
    const p = startProcess('apiserver-bad-audit', BIN.apiserver, ['--bind-address=127.0.0.1', '--secure-port=0', `--datastore-endpoint=sqlite://${path.join(dir, 'bad.db')}`, `--audit-policy-file=${policy}`, `--audit-log-path=${path.join(dir, 'bad.log')}`]);
    try {
      await waitFor('exit', () => p.child.exitCode !== null, 20_000);
      expect(p.child.exitCode).toBe(1);
      expect(p.output()).toContain(`loading audit policy file: rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse": from file ${policy}`);
    } finally {
      await p.kill('SIGKILL');
    }
  }, 30_000);

  it("kemu up's default policy: Metadata for objects, None for health checks, Lease renewals and Events", () => {
    const p = loadPolicyFile(writeDefaultAuditPolicy(dir));
    const admin = { username: 'system:unsecured', groups: ['system:masters'] };
    const level = (m: string, u: string) => evaluate(p, requestAttributes(m, u, admin)).level;
    expect(level('GET', '/readyz')).toBe('None');
    expect(level('GET', '/apis/apps/v1')).toBe('None');
    expect(level('PUT', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/worker-0')).toBe('None');
    expect(level('POST', '/api/v1/namespaces/default/events')).toBe('None');
    expect(level('POST', '/apis/apps/v1/namespaces/default/deployments')).toBe('Metadata');
    expect(level('DELETE', '/api/v1/namespaces/default/pods/p')).toBe('Metadata');
    expect(level('POST', '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases')).toBe('Metadata');
  });

  it('kemu up keeps an edited policy file in the data dir', () => {
    const own = mkdtempSync(path.join(dir, 'lab-'));
    const file = writeDefaultAuditPolicy(own);
    writeFileSync(file, 'apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: RequestResponse\n');
    expect(writeDefaultAuditPolicy(own)).toBe(file);
    expect(loadPolicyFile(file).rules[0]?.level).toBe('RequestResponse');
  });
});
