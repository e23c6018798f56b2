// The lab's default addons: seeded into DIR/addons once, and accepted as they are by the apiserver (every object
// applied or created, kube-dns on 10.96.0.10 with CoreDNS' three ports, CoreDNS with kubeadm's 2 replicas).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AddonReconciler, loadManifests } from '@kemu/addon-manager';
import { R, type KubeObject, type Service } from '@kemu/api';
import { silentLogger } from '@kemu/base';
import { RestClient } from '@kemu/client';
import type { ApiServer } from '@kemu/apiserver';
import { startMemoryApiServer } from '../../apiserver/src/testing/memory-server.ts';
import { ensureLabAddons } from './lab-addons.ts';

let dir: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-addons-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('lab addons', () => {
  it('makes DIR/addons with the defaults once; a user-removed default stays removed', () => {
    const first = ensureLabAddons(dir);
    expect(first.dir).toBe(path.join(dir, 'addons'));
    expect(first.seeded).toEqual(['coredns.yaml', 'metrics-server.yaml']);
    fs.rmSync(path.join(first.dir, 'metrics-server.yaml'));
    expect(ensureLabAddons(dir).seeded).toEqual([]);
    expect(fs.readdirSync(first.dir)).toEqual(['coredns.yaml']);
  });

  describe('applied to an apiserver', () => {
    let srv: ApiServer;
    let client: RestClient;
    beforeAll(async () => {
      srv = await startMemoryApiServer();
      client = new RestClient({ server: await srv.app.listen({ host: '127.0.0.1', port: 0 }), qps: -1 }, { maxRetries: 0 });
    });
    afterAll(async () => {
      await client?.close();
      await srv?.close();
    });

    it('every default object is accepted: kube-dns gets 10.96.0.10, CoreDNS 2 replicas, metrics-server its Service and APIService', async () => {
      const seeded = fs.mkdtempSync(path.join(os.tmpdir(), 'kemu-addons-'));
      try {
        const rec = new AddonReconciler({ client, logger: silentLogger() });
        const manifests = loadManifests(ensureLabAddons(seeded).dir);
        const report = await rec.cycle(manifests);
        expect(report.errors).toEqual([]);
        expect(report.ignored).toEqual([]);
        expect(report.created.sort()).toEqual(['clusterrolebinding.rbac.authorization.k8s.io/system:coredns', 'configmap/coredns']);
        expect(report.applied).toContain('deployment.apps/coredns created');
        expect(report.applied).toContain('apiservice.apiregistration.k8s.io/v1beta1.metrics.k8s.io created');
        // The next pass writes nothing: no object churns (nor a Deployment rolls) once a period.
        const again = await rec.cycle(manifests);
        expect(again.errors).toEqual([]);
        expect(again.applied.filter((a) => !a.endsWith(' unchanged'))).toEqual([]);
        expect(again.created).toEqual([]);
      } finally {
        fs.rmSync(seeded, { recursive: true, force: true });
      }
      const dns = await client.get<Service>(R.services, 'kube-system', 'kube-dns');
      expect(dns.spec?.clusterIP).toBe('10.96.0.10');
      expect(dns.spec?.ports?.map((p) => `${p.port}/${p.protocol}`)).toEqual(['53/UDP', '53/TCP', '9153/TCP']);
      const coredns = await client.get<KubeObject & { spec: { replicas: number; template: { spec: { containers: { image: string }[] } } } }>(R.deployments, 'kube-system', 'coredns');
      expect(coredns.spec.replicas).toBe(2);
      expect(coredns.spec.template.spec.containers[0]?.image).toBe('registry.k8s.io/coredns/coredns:v1.11.3');
      const ms = await client.get<Service>(R.services, 'kube-system', 'metrics-server');
      expect(ms.spec?.selector).toBeUndefined();
      const api = await client.get<KubeObject & { spec: Record<string, unknown> }>(R.apiservices, undefined, 'v1beta1.metrics.k8s.io');
      expect(api.spec).toMatchObject({ service: { namespace: 'kube-system', name: 'metrics-server', port: 443 }, insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 100 });
    });
  });
});
