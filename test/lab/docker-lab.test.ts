// The compose lab end to end through `kemu compose up`, one lab for the file: from the base images (built when
// missing) to every container healthy and 3 Ready nodes, the kubeconfig it writes working with kubectl, the leader
// Leases; kubectl top nodes through the metrics-server container; containers named as their services; a second
// `kemu compose up` reusing every image; a paused worker's pods evicted and rescheduled within a minute with short
// toleration flags; the cluster-autoscaler starting a node-group machine as a container; leader chaos (the
// controller-manager leader's container stopped, started again and killed; the scheduler leader's paused past its
// lease and unpaused); `kemu compose down --volumes` leaving no container, network or volume. Lease 6s / renew 4s /
// retry 1s through the compose variables. Runs when Docker is usable here and the base images are built (see
// docker.ts for the gate; KEMU_DOCKER_TESTS=1 forces it, building everything first, =0 skips it).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '@kemu/base/testing/processes';
import { leaseHolder } from '@kemu/kemu';
import { missing, hasKubectl } from './lab.ts';
import { LeaseWatch, labFetch, labTlsFor } from './api.ts';
import { planDocker, startEngine, startComposeLab, waitAllHealthy, waitNodesReady, type ComposeLab } from './compose-lab.ts';

const plan = planDocker('test/lab/docker-lab.test.ts', missing('apiserver', 'controller-manager', 'scheduler', 'worker') ?? (hasKubectl() ? undefined : 'kubectl is not installed'));

const SERVICES = ['lb', ...['apiserver', 'controller-manager', 'scheduler', 'worker'].flatMap((k) => [0, 1, 2].map((i) => `${k}-${i}`)), 'metrics-server', 'kube-addon-manager', 'cloud', 'cluster-autoscaler'];
const LEASE_MS = 6_000;
const RETRY_MS = 1_000;
/** Head-room for a loaded 2-core machine (and docker's own latency) on top of what the protocol allows. */
const SLACK_MS = 3_000;
const PORT_OF: Record<string, string> = { apiserver: '6443', 'controller-manager': '10257', scheduler: '10259', worker: '10250', 'metrics-server': '10250', 'cluster-autoscaler': '8085' };

describe.skipIf(plan.skip)('docker-compose lab (kemu compose up)', () => {
  let lab: ComposeLab | undefined;
  const t0 = Date.now();

  beforeAll(async () => {
    if (!(await startEngine(plan))) return;
    // Short leader-election durations through the compose variables; node monitoring and the default
    // tolerations through `kemu compose up`'s flags (the same names as kube-apiserver's and kube-controller-manager's).
    lab = await startComposeLab(plan, { KEMU_LEASE_DURATION: `${LEASE_MS / 1000}s`, KEMU_RENEW_DEADLINE: '4s', KEMU_RETRY_PERIOD: `${RETRY_MS / 1000}s` }, [
      '--node-monitor-grace-period=20s',
      '--node-monitor-period=2s',
      '--default-not-ready-toleration-seconds=10',
      '--default-unreachable-toleration-seconds=10',
      // A node has metrics from metrics-server's second scrape: 3s apart, not 15s.
      '--metric-resolution=3s',
    ]);
  }, 1_800_000);

  afterAll(async () => {
    await lab?.down();
    await plan.engine?.stop();
  }, 180_000);

  it('returns with every container healthy, 3 Ready nodes and a kubeconfig that works, and elects one leader of each kind', async (ctx) => {
    if (!lab) return ctx.skip('no Docker engine');
    const l = lab;
    console.log(`kemu compose up: ${l.upSeconds.toFixed(1)}s to all healthy and 3 Nodes Ready (${((Date.now() - t0) / 1000).toFixed(1)}s since the engine answered)`);
    expect(l.upOutput).toContain(`export KUBECONFIG=${path.join(l.dir, 'kubeconfig')}`);
    expect(l.upOutput).toMatch(/all 17 containers healthy and every Node Ready/);
    expect(fs.existsSync(l.kubeconfig)).toBe(true);
    const nodes = await l.kubectl('get', 'nodes', '--no-headers');
    expect(nodes.code, nodes.stderr).toBe(0);
    expect(nodes.stdout.split('\n').filter((x) => /^worker-\d\s+Ready\s/.test(x))).toHaveLength(3);
    await waitNodesReady(l);
    const cm = await waitFor('controller-manager leader', async () => (await leaseHolder(l.server, 'kube-controller-manager', labTlsFor(l.server))).component, 60_000, 500);
    const sched = await waitFor('scheduler leader', async () => (await leaseHolder(l.server, 'kube-scheduler', labTlsFor(l.server))).component, 60_000, 500);
    expect(cm).toMatch(/^controller-manager-[0-2]$/);
    expect(sched).toMatch(/^scheduler-[0-2]$/);
    const leases = await l.kubectl('-n', 'kube-system', 'get', 'lease', 'kube-controller-manager', 'kube-scheduler', '--no-headers');
    expect(leases.stdout).toContain(`${cm}_`);
    // As in the seed walkthrough: the raw Lease list through the published port also holds the three
    // apiserver identity Leases (apiserver-<hash>, labelled with the replica's hostname = its container).
    const res = await labFetch(`${l.server}/apis/coordination.k8s.io/v1/namespaces/kube-system/leases`);
    expect(res.status).toBe(200);
    const items = ((await res.json()) as { items: { metadata: { name: string; labels?: Record<string, string> } }[] }).items;
    expect(items.map((i) => i.metadata.name)).toEqual(expect.arrayContaining(['kube-controller-manager', 'kube-scheduler']));
    const identities = items.filter((i) => /^apiserver-[a-z0-9]+$/.test(i.metadata.name) && i.metadata.labels?.['kubernetes.io/hostname']);
    expect(identities.map((i) => i.metadata.labels?.['kubernetes.io/hostname']).sort()).toEqual(['apiserver-0', 'apiserver-1', 'apiserver-2']);
    // Each replica advertises its own container address (no --advertise-address in the compose file), so the
    // `kubernetes` Service's Endpoints hold three distinct non-loopback IPs on 6443.
    const ips = await waitFor('three apiserver addresses in default/kubernetes', async () => {
      const r = await labFetch(`${l.server}/api/v1/namespaces/default/endpoints/kubernetes`);
      const ep = (await r.json()) as { subsets?: { addresses?: { ip: string }[]; ports?: { port: number }[] }[] };
      const got = (ep.subsets ?? []).flatMap((s) => (s.ports ?? []).some((p) => p.port === 6443) ? (s.addresses ?? []).map((a) => a.ip) : []);
      return new Set(got).size === 3 ? got : undefined;
    }, 60_000, 500);
    for (const ip of ips) expect(ip).not.toMatch(/^127\./);
  }, 420_000);

  it('kubectl top nodes prints the 3 workers through the APIService to the metrics-server container', async (ctx) => {
    if (!lab) return ctx.skip('no Docker engine');
    const l = lab;
    expect(l.upOutput).toMatch(/metrics-server: \d+\.\d+\.\d+\.\d+:10250 \(container metrics-server\) behind APIService v1beta1\.metrics\.k8s\.io/);
    const rows = await waitFor('kubectl top nodes with the 3 workers', async () => {
      const r = await l.kubectl('top', 'nodes', '--no-headers');
      const workers = r.stdout.split('\n').filter((x) => /^worker-\d\s+\d+m\s+\d+%\s+\d+Mi\s+\d+%\s*$/.test(x));
      return workers.length === 3 ? workers : undefined;
    }, 120_000, 1000);
    expect(rows.map((x) => x.split(/\s+/)[0]).sort()).toEqual(['worker-0', 'worker-1', 'worker-2']);
    const api = await l.kubectl('get', 'apiservice', 'v1beta1.metrics.k8s.io', '--no-headers');
    expect(api.stdout).toMatch(/^v1beta1\.metrics\.k8s\.io\s+kube-system\/metrics-server\s+True\s/);
  }, 180_000);

  it('names every container as its service (the Lease holder\'s prefix) and exposes only the port it serves', async (ctx) => {
    if (!lab) return ctx.skip('no Docker engine');
    const r = await lab.docker('inspect', '-f', '{{.Name}} {{.Config.Hostname}} {{json .Config.ExposedPorts}}', ...SERVICES);
    expect(r.code, r.stderr).toBe(0);
    const rows = r.stdout.trim().split('\n').map((line) => line.split(' '));
    expect(rows.map(([name]) => name)).toEqual(SERVICES.map((s) => `/${s}`));
    for (const [name = '', host, ports = ''] of rows) {
      const service = name.slice(1);
      expect(host, service).toBe(service);
      if (service === 'lb') continue;
      const kind = service.replace(/-\d+$/, '');
      // The addon manager and the cloud serve no port.
      expect(Object.keys((JSON.parse(ports) as Record<string, unknown> | null) ?? {}), service).toEqual(PORT_OF[kind] ? [`${PORT_OF[kind]}/tcp`] : []);
    }
  }, 60_000);

  it('a pod only the node group can take: the cluster-autoscaler asks the cloud, which starts pool-0 as a container', async (ctx) => {
    if (!lab) return ctx.skip('no Docker engine');
    const l = lab;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'grow', namespace: 'default' },
      spec: { nodeSelector: { 'kemu.dev/node-group': 'pool' }, containers: [{ name: 'c', image: 'registry.k8s.io/pause:3.9', resources: { requests: { cpu: '3' } } }], terminationGracePeriodSeconds: 0 },
    };
    fs.writeFileSync(path.join(l.dir, 'grow.json'), JSON.stringify(pod));
    const created = await l.kubectl('create', '-f', path.join(l.dir, 'grow.json'));
    expect(created.code, created.stderr).toBe(0);
    const phase = async () => (await l.kubectl('get', 'pod', 'grow', '-o', 'jsonpath={.status.phase} {.spec.nodeName}')).stdout.trim();
    const running = await waitFor('grow Running', async () => ((await phase()).startsWith('Running ') ? await phase() : undefined), 180_000, 1000).catch(async (e: unknown) => {
      // What each party did: the pod's events, the autoscaler's and the cloud's logs, the machines started.
      const events = (await l.kubectl('get', 'events', '--field-selector=involvedObject.name=grow')).stdout;
      const logs = (await l.compose('logs', '--no-color', '--tail=40', 'cluster-autoscaler', 'cloud')).stdout;
      const machines = (await l.docker('ps', '-a', '--filter', 'label=kemu.dev/node-group', '--format', '{{.Names}} {{.Status}}')).stdout;
      const nodes = (await l.kubectl('get', 'nodes')).stdout;
      throw new Error(`${String(e)} (now "${await phase()}")\nevents:\n${events}\nmachines:\n${machines}\nnodes:\n${nodes}\n${logs.slice(-8000)}`);
    });
    expect(running).toBe('Running pool-0');
    const events = await l.kubectl('get', 'events', '--field-selector=involvedObject.name=grow,reason=TriggeredScaleUp', '-o', 'jsonpath={.items[*].message}');
    expect(events.stdout).toContain('pod triggered scale-up: [{pool 0->1 (max: 3)}]');
    // The machine is a container of the project, named as its Node, with the group's label.
    const c = await l.docker('inspect', '-f', '{{.Config.Hostname}} {{index .Config.Labels "com.docker.compose.project"}} {{index .Config.Labels "kemu.dev/node-group"}}', 'pool-0');
    expect(c.stdout.trim()).toBe(`pool-0 ${l.project} pool`);
    // As the chart's ServiceAccount, not an admin.
    const holder = await l.kubectl('-n', 'kube-system', 'get', 'lease', 'cluster-autoscaler', '-o', 'jsonpath={.spec.holderIdentity}');
    expect(holder.stdout).toMatch(/^cluster-autoscaler/);
    await l.kubectl('delete', 'pod', 'grow', '--wait=false');
  }, 300_000);

  it('a second kemu compose up reuses every image (nothing rebuilt) and changes nothing, the node group\'s machine included', async (ctx) => {
    if (!lab) return ctx.skip('no Docker engine');
    const log = path.join(lab.dir, 'compose.log');
    // pool-0, the node group's machine the test before had the cloud start, is a container no service names.
    const machine = async () => (await lab!.docker('inspect', '-f', '{{.State.Running}} {{.State.StartedAt}}', 'pool-0')).stdout.trim();
    const before = await machine();
    expect(before).toMatch(/^true /);
    const t = Date.now();
    const again = await lab.kemuCompose('up');
    const seconds = (Date.now() - t) / 1000;
    console.log(`kemu compose up again (warm, lab running): ${seconds.toFixed(1)}s`);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('base images present');
    expect(again.stdout).not.toMatch(/building node|debootstrap/);
    // The log is rewritten by each up: the build's steps all came from the cache.
    const built = fs.readFileSync(log, 'utf8');
    expect(built).toMatch(/Using cache/);
    expect(built).not.toMatch(/Running in [0-9a-f]{12}/);
    expect(again.stdout).toContain('export KUBECONFIG=');
    // The machine is not an orphan to remove: the same container runs on.
    expect(await machine()).toBe(before);
  }, 600_000);

  it('a paused worker goes Unknown and, with --default-unreachable-toleration-seconds=10, its pods are evicted and rescheduled within a minute', async (ctx) => {
    if (!lab) return ctx.skip('no Docker engine');
    const l = lab;
    const ok = async (...a: string[]) => {
      const r = await l.kubectl(...a);
      expect(r.code, `kubectl ${a.join(' ')}: ${r.stderr}`).toBe(0);
      return r.stdout;
    };
    await ok('create', 'deployment', 'evict', '--image=nginx', '--replicas=3');
    type Pod = { metadata: { name: string; deletionTimestamp?: string }; spec: { nodeName?: string; tolerations?: { key?: string; tolerationSeconds?: number }[] }; status: { phase?: string } };
    const pods = async () => (JSON.parse(await ok('get', 'pods', '-l', 'app=evict', '-o', 'json')) as { items: Pod[] }).items;
    const running = await waitFor('3 evict pods Running', async () => {
      const ps = await pods();
      return ps.filter((p) => p.status.phase === 'Running' && !p.metadata.deletionTimestamp).length === 3 ? ps : undefined;
    }, 120_000, 500);
    // The DefaultTolerationSeconds admission took the apiserver flag.
    expect(running[0]?.spec.tolerations).toEqual(expect.arrayContaining([expect.objectContaining({ key: 'node.kubernetes.io/unreachable', tolerationSeconds: 10 })]));
    const victim = running[0]?.spec.nodeName ?? '';
    const onVictim = running.filter((p) => p.spec.nodeName === victim).map((p) => p.metadata.name);
    const tPause = Date.now();
    const paused = await l.docker('pause', victim); // the node's name is its container's
    expect(paused.code, paused.stderr).toBe(0);
    try {
      await waitFor(`${victim} Unknown`, async () => / Unknown /.test(` ${await ok('get', 'node', victim, '-o', 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')} `), 60_000, 500);
      const tUnknown = Date.now();
      await waitFor(`the pods of ${victim} evicted and replaced elsewhere`, async () => {
        const ps = await pods();
        const evicted = onVictim.every((n) => ps.find((p) => p.metadata.name === n)?.metadata.deletionTimestamp !== undefined || !ps.some((p) => p.metadata.name === n));
        const elsewhere = ps.filter((p) => p.status.phase === 'Running' && !p.metadata.deletionTimestamp && p.spec.nodeName !== victim).length;
        return evicted && elsewhere === 3;
      }, 90_000, 500);
      const tDone = Date.now();
      console.log(`docker pause ${victim}: Unknown after ${((tUnknown - tPause) / 1000).toFixed(1)}s, its ${onVictim.length} pod(s) evicted and 3 Running elsewhere after ${((tDone - tPause) / 1000).toFixed(1)}s`);
      expect(tDone - tPause).toBeLessThan(60_000);
    } finally {
      await l.docker('unpause', victim);
      await l.kubectl('delete', 'deployment', 'evict', '--wait=false');
    }
  }, 300_000);

  describe('leader chaos: containers addressed by the Lease holder\'s name', () => {
    let cmLease: LeaseWatch;
    let schedLease: LeaseWatch;
    const L = () => {
      if (!lab) throw new Error('no lab');
      return lab;
    };

    beforeAll(async () => {
      if (!lab) return;
      cmLease = new LeaseWatch(lab.server, 'kube-controller-manager');
      schedLease = new LeaseWatch(lab.server, 'kube-scheduler');
      await cmLease.start();
      await schedLease.start();
      // Chaos on a settled lab: every container healthy, the nodes registered, both leaders renewing.
      await waitAllHealthy(lab);
      await waitNodesReady(lab);
      for (const w of [cmLease, schedLease]) {
        const holder = await leader(w);
        await renewals(w, holder, Date.now(), 3);
      }
    }, 600_000);

    afterAll(() => {
      cmLease?.stop();
      schedLease?.stop();
    });

    const leader = (w: LeaseWatch) => waitFor(`a ${w.lease} leader`, () => w.component(), 90_000, 50);
    /** n renewals by `holder` seen after `since` (the Lease's renewTime moves every retry period). */
    const renewals = (w: LeaseWatch, holder: string, since: number, n: number) =>
      waitFor(`${n} renewals by ${holder}`, () => w.events.filter((e) => e.at >= since && e.holder.startsWith(`${holder}_`)).length >= n, 30_000, 50);
    const docker = async (...args: string[]) => {
      const r = await L().docker(...args);
      if (r.code !== 0) throw new Error(`docker ${args.join(' ')}: ${r.code} ${r.stderr}`);
    };
    const healthy = (service: string) => waitFor(`${service} running and healthy`, async () => {
      const s = await L().state(service);
      return s.Running && !s.Paused && s.Health === 'healthy';
    }, 90_000, 500);

    it('docker stop: the controller-manager leader exits 0 without releasing its Lease, a follower takes it once the lease has expired; the stopped container stays down, and once started again it is a follower', async (ctx) => {
      if (!lab) return ctx.skip('no Docker engine');
      const first = await leader(cmLease);
      const id = first; // the container's name is the Lease holder's prefix
      // Restarts before the experiment (a leader that lost its lease on a busy machine exits and comes back) are
      // not the stop's doing; what counts is that the stop adds none.
      const { RestartCount: restarts } = await L().state(first);
      const tStop = Date.now();
      await docker('stop', '-t', '15', id);
      // kube-controller-manager does not release its Lease (as in Kubernetes): a follower waits for it to expire.
      const second = await waitFor('a new holder', () => cmLease.takeover(first, tStop), LEASE_MS + RETRY_MS + 30_000, 20);
      const secondName = second.holder.split('_')[0]!;
      console.log(`docker stop ${first}: stop → ${secondName} ${second.at - tStop} ms`);
      expect(cmLease.history.filter((h) => h.at >= tStop && h.holder === ''), 'the Lease was released').toEqual([]);
      expect(second.at - tStop).toBeGreaterThanOrEqual(LEASE_MS - 1.2 * RETRY_MS);
      expect(second.at - tStop).toBeLessThan(LEASE_MS + 2 * RETRY_MS + SLACK_MS);
      expect(await L().state(first)).toMatchObject({ Status: 'exited', ExitCode: 0, RestartCount: restarts });

      // restart: on-failure leaves a container that was stopped on purpose alone — still down after a few
      // renewals of the new leader.
      await renewals(cmLease, secondName, second.at, 3);
      expect(await L().state(first)).toMatchObject({ Status: 'exited', RestartCount: restarts });

      const tStart = Date.now();
      await docker('start', id);
      await healthy(first);
      const tHealthy = Date.now();
      await renewals(cmLease, secondName, tHealthy, 3);
      console.log(`docker start ${first}: healthy in ${tHealthy - tStart} ms, a follower`);
      expect(cmLease.component()).toBe(secondName);
      expect(cmLease.history.filter((h) => h.at >= tStart && h.holder !== second.holder)).toEqual([]);
    }, 240_000);

    it('docker kill: a follower takes the controller-manager Lease within lease + retry; nothing releases it', async (ctx) => {
      if (!lab) return ctx.skip('no Docker engine');
      const victim = await leader(cmLease);
      const id = victim;
      const { RestartCount: restarts } = await L().state(victim);
      const tKill = Date.now();
      await docker('kill', id);
      const dead = Date.now();
      const next = await waitFor('a holder after the kill', () => cmLease.takeover(victim, tKill), LEASE_MS + RETRY_MS + 30_000, 20);
      console.log(`docker kill ${victim}: killed → ${next.holder.split('_')[0]} in ${next.at - dead} ms`);
      expect(next.at - dead).toBeLessThan(LEASE_MS + RETRY_MS + SLACK_MS);
      expect(cmLease.history.filter((h) => h.at >= tKill && h.holder === '')).toEqual([]);
      const st = await L().state(victim);
      console.log(`docker kill ${victim}: container ${st.Status}, exit ${st.ExitCode}, restarts ${st.RestartCount}`);
      expect(st).toMatchObject({ Status: 'exited', ExitCode: 137, RestartCount: restarts });
      await docker('start', id);
      await healthy(victim);
    }, 180_000);

    it('docker pause past the lease: another scheduler takes over; on unpause the old leader exits non-zero ("leaderelection lost") and the restart policy brings it back as a follower', async (ctx) => {
      if (!lab) return ctx.skip('no Docker engine');
      const frozen = await leader(schedLease);
      const id = frozen;
      const before = await L().state(frozen);
      const tPause = Date.now();
      await docker('pause', id);
      const next = await waitFor('a holder while paused', () => schedLease.takeover(frozen, tPause), LEASE_MS + RETRY_MS + 30_000, 20);
      const nextName = next.holder.split('_')[0]!;
      console.log(`docker pause ${frozen}: ${nextName} took over ${next.at - tPause} ms after the pause`);
      expect(next.at - tPause).toBeGreaterThanOrEqual(LEASE_MS - RETRY_MS);
      expect(next.at - tPause).toBeLessThan(LEASE_MS + 2 * RETRY_MS + SLACK_MS);
      expect((await L().state(frozen)).Paused).toBe(true);

      const tUnpause = Date.now();
      await docker('unpause', id);
      await waitFor(`${frozen} restarted by the restart policy`, async () => (await L().state(frozen)).RestartCount > before.RestartCount, 60_000, 200);
      await healthy(frozen);
      console.log(`docker unpause ${frozen}: restarted and healthy ${Date.now() - tUnpause} ms later`);
      const logs = await L().docker('logs', id);
      expect(logs.stdout + logs.stderr).toContain('leaderelection lost');
      await renewals(schedLease, nextName, Date.now(), 3);
      expect(schedLease.component()).toBe(nextName);
      expect(schedLease.history.filter((h) => h.at >= tUnpause && h.holder.startsWith(`${frozen}_`))).toEqual([]);
    }, 180_000);
  });

  it('kemu compose down --volumes leaves no container, network or volume', async (ctx) => {
    if (!lab) return ctx.skip('no Docker engine');
    const l = lab;
    await l.down();
    const label = `label=com.docker.compose.project=${l.project}`;
    for (const what of [['ps', '-a', '-q', '--filter', label], ['network', 'ls', '-q', '--filter', label], ['volume', 'ls', '-q', '--filter', label]]) {
      const r = await l.docker(...what);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.trim(), what.join(' ')).toBe('');
    }
    const byName = await l.docker('ps', '-a', '--format', '{{.Names}}');
    for (const s of SERVICES) expect(byName.stdout.split('\n'), s).not.toContain(s);
  }, 180_000);
});
