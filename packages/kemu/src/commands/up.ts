// `kemu up`: starts the whole lab as supervised processes on loopback and stays in the foreground until
// Ctrl-C/SIGTERM (or `kemu down`), then stops everything — controllers first, apiservers next, the balancer last.
import fs from 'node:fs';
import path from 'node:path';
import { formatDuration, loggingFormatError, parseFlags } from '@kemu/base';
import { UP_FLAGS, resolveDataDir } from '../options.ts';
import { isPortFree, pickPort } from '../ports.ts';
import { planTopology, kubeletBootstrapMode, BINARIES, type ComponentSpec, type TopologyOptions } from '../topology.ts';
import { writeDefaultAuditPolicy } from '../audit-policy.ts';
import { AddressError, parseLoopback } from '../addresses.ts';
import { planLb, parseLbChoice } from '../lb.ts';
import { Supervisor } from '../supervisor.ts';
import { serveControl, controlSocketPath, type Action } from '../control.ts';
import { prepareBootstrappingKubelet, ensureLabPki, labPkiFiles, readLabTls } from '../lab-pki.ts';
import { ensureLabBootstrap, labAdminClient } from '../lab-bootstrap.ts';
import { joinWorker } from '../lab-join.ts';
import { ensureLabAddons } from '../lab-addons.ts';
import { ensureClusterAutoscalerIdentity } from '../cluster-autoscaler-identity.ts';
import { deleteNodeOfMachine } from '../node-groups.ts';
import { NodeGroupCloud, NodeGroupError, groupKubeletArgs, parseNodeGroups, writeCloudConfig, type NodeGroupSpec } from '../node-groups.ts';
import { planClusterAutoscaler, planMetricsServers } from '../topology.ts';
import { ensureMetricsServerObjects } from '../metrics-server-objects.ts';
import { readState, writeState, pidAlive, type LabState } from '../state.ts';
import { probe } from '../probe.ts';
import { UsageError } from './errors.ts';
import { STORES, etcdUnavailable, planEtcdCluster, type EtcdCluster } from '../etcd-cluster.ts';
import { ensureEtcdPki } from '@kemu/pki';

function say(line: string): void {
  process.stdout.write(`[kemu] ${line}\n`);
}

export async function up(argv: string[]): Promise<number> {
  const f = parseFlags(UP_FLAGS, argv);
  if (f._.length) throw new UsageError(`kemu up takes no arguments (got ${f._.join(' ')})`);
  for (const k of ['workers', 'controller-managers', 'schedulers', 'addon-managers'] as const)
    if (f[k] < 0) throw new UsageError(`--${k} must be 0 or more`);
  if (f['addon-check-interval'] <= 0) throw new UsageError('--addon-check-interval must be greater than 0');
  for (const k of ['horizontal-pod-autoscaler-sync-period', 'cpu-usage-window'] as const)
    if (f[k] <= 0) throw new UsageError(`--${k} must be greater than 0`);
  if (f['max-pods'] < 1) throw new UsageError('--max-pods must be at least 1');
  if (f.apiservers < 1) throw new UsageError('--apiservers must be at least 1');
  if (f.port < 1 || f.port > 65535) throw new UsageError(`--port ${f.port} is not a TCP port`);
  if (!(STORES as readonly string[]).includes(f.store)) throw new UsageError(`--store must be one of ${STORES.join(', ')} (got "${f.store}")`);
  if (f.store === 'etcd') {
    const why = etcdUnavailable();
    if (why) throw new UsageError(why);
  }
  let nodeGroupSpecs: NodeGroupSpec[];
  try {
    nodeGroupSpecs = parseNodeGroups(f['node-group'], f['max-pods']);
  } catch (e) {
    throw e instanceof NodeGroupError ? new UsageError(e.message) : e;
  }
  if (f['cluster-autoscalers'] < 0) throw new UsageError('--cluster-autoscalers must be 0 or more');
  if (f['metrics-servers'] < 0) throw new UsageError('--metrics-servers must be 0 or more');
  if (f['metric-resolution'] <= 0) throw new UsageError('--metric-resolution must be greater than 0');
  const lbChoice = parseLbChoice(f.lb);
  const formatError = loggingFormatError(f['logging-format']);
  if (formatError) throw new UsageError(formatError);
  const dataDir = resolveDataDir(f['data-dir']);
  fs.mkdirSync(path.join(dataDir, 'logs'), { recursive: true });

  try {
    const prev = readState(dataDir);
    if (pidAlive(prev.supervisorPid) && prev.supervisorPid !== process.pid)
      throw new UsageError(`a lab is already running from ${dataDir} (kemu pid ${prev.supervisorPid}); stop it with: kemu down --data-dir ${dataDir}`);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    // no previous state, or unreadable: start fresh
  }
  try {
    parseLoopback(f.address);
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (!(await isPortFree(f.port, f.address)))
    throw new UsageError(`port ${f.port} on ${f.address} is in use (another lab?); run this one on another /24 with --address, e.g. --address 127.0.1.1, or choose another --port`);

  let auditPolicyFile: string | undefined;
  if (f['audit-log']) {
    auditPolicyFile = f['audit-policy-file'] ? path.resolve(f['audit-policy-file']) : writeDefaultAuditPolicy(dataDir);
    if (!fs.existsSync(auditPolicyFile)) throw new UsageError(`--audit-policy-file ${auditPolicyFile}: no such file`);
  }
  const taken = new Set<string>([`${f.address}:${f.port}`]);
  // The etcd members take their addresses and ports first; the apiservers get their --etcd-* flags.
  let etcd: EtcdCluster | undefined;
  if (f.store === 'etcd')
    etcd = await planEtcdCluster({ dataDir, address: f.address, members: 3, v: f.v }, taken).catch((e: unknown) => {
      throw e instanceof AddressError ? new UsageError(e.message) : e;
    });
  const bootstrapMode = kubeletBootstrapMode(f['kubelet-bootstrap'], f['controller-managers']);
  const topoOptions: TopologyOptions = {
      dataDir,
      address: f.address,
      port: f.port,
      apiservers: f.apiservers,
      controllerManagers: f['controller-managers'],
      schedulers: f.schedulers,
      addonManagers: f['addon-managers'],
      addonCheckIntervalMs: f['addon-check-interval'],
      workers: f.workers,
      leaseDurationMs: f['leader-elect-lease-duration'],
      renewDeadlineMs: f['leader-elect-renew-deadline'],
      retryPeriodMs: f['leader-elect-retry-period'],
      nodeMonitorGracePeriodMs: f['node-monitor-grace-period'],
      nodeMonitorPeriodMs: f['node-monitor-period'],
      hpaSyncPeriodMs: f['horizontal-pod-autoscaler-sync-period'],
      hpaDownscaleStabilizationMs: f['horizontal-pod-autoscaler-downscale-stabilization'],
      cpuUsageWindowMs: f['cpu-usage-window'],
      defaultNotReadyTolerationSeconds: f['default-not-ready-toleration-seconds'],
      defaultUnreachableTolerationSeconds: f['default-unreachable-toleration-seconds'],
      nodeStatusUpdateFrequencyMs: f['node-status-update-frequency'],
      nodeLeaseDurationSeconds: f['node-lease-duration-seconds'],
      maxPods: f['max-pods'],
      imagePullDelayMs: f['image-pull-delay'],
      imageCatalogs: f['image-catalog'].map((file) => path.resolve(file)),
      v: f.v,
      loggingFormat: f['logging-format'],
      ...(auditPolicyFile ? { auditPolicyFile } : {}),
      kubeletBootstrap: bootstrapMode.bootstrap,
      ...(etcd ? { storeFlags: etcd.apiserverFlags } : {}),
  };
  const topo = await planTopology(topoOptions, taken).catch((e: unknown) => {
    throw e instanceof AddressError ? new UsageError(e.message) : e;
  });
  const metricsServers = await planMetricsServers(topoOptions, f['metrics-servers'], taken, f['metric-resolution']).catch((e: unknown) => {
    throw e instanceof AddressError ? new UsageError(e.message) : e;
  });
  if (topo.apiservers.length === 0)
    throw new UsageError('kube-apiserver is not implemented yet (packages/apiserver/src/main.ts is missing): nothing to run');
  const server = `https://${f.address}:${f.port}`;
  const kubeconfig = path.join(dataDir, 'kubeconfig');
  const pkiFiles = labPkiFiles(dataDir);
  // The PKI before anything starts (kept when there and still fitting: a restart reuses it).
  const pkiStarted = Date.now();
  const pkiActions = await ensureLabPki({
    dataDir,
    server,
    lbAddress: f.address,
    apiserverAddresses: topo.apiservers.map((a) => a.address),
    // Bootstrapping kubelets get their certificates from their CSRs; the others from kemu.
    nodes: bootstrapMode.bootstrap ? [] : topo.workers.map((w) => w.name),
  });
  if (etcd) pkiActions.push(...(await ensureEtcdPki({ dataDir, members: etcd.members.map((m) => m.address) })));
  if (bootstrapMode.bootstrap) for (const w of topo.workers) prepareBootstrappingKubelet(dataDir, w.name);
  const made = pkiActions.filter((a) => a.action !== 'kept').map((a) => a.name);
  const statsPort = await pickPort(taken, f.address, 8404);
  const lb = planLb(
    lbChoice,
    dataDir,
    { host: f.address, port: f.port },
    { host: f.address, port: statsPort },
    topo.apiservers.map((a) => ({ name: a.name, host: a.address, port: a.ports['secure-port'] ?? 0 })),
    f['logging-format'],
    pkiFiles.ca,
  );

  let changed = false;
  const sup = new Supervisor({
    logDir: path.join(dataDir, 'logs'),
    graceMs: f['stop-grace-period'],
    say,
    onChange: () => {
      changed = true;
      queueMicrotask(flush);
    },
  });
  const state = (): LabState => ({
    version: 1,
    supervisorPid: process.pid,
    dataDir,
    server,
    lb: lb.kind,
    controlSocket: socket,
    kubeconfig,
    startedAt,
    components: sup.records(),
  });
  const startedAt = new Date().toISOString();
  const startedMs = Date.now();
  function flush(): void {
    if (!changed) return;
    changed = false;
    writeState(dataDir, state());
  }

  const addons = ensureLabAddons(dataDir);
  // Node groups: the cloud config the autoscaler reads, and its replicas (workers of the groups start later, through the cloud).
  const socket = controlSocketPath(dataDir);
  const autoscalers: ComponentSpec[] = [];
  if (nodeGroupSpecs.length) {
    const cloudConfig = writeCloudConfig(dataDir, socket, nodeGroupSpecs);
    for (let i = 0; i < f['cluster-autoscalers']; i++)
      autoscalers.push(await planClusterAutoscaler(topoOptions, i, taken, cloudConfig, nodeGroupSpecs, f['autoscaler-arg']));
  }
  const groups: ComponentSpec[][] = [etcd?.members ?? [], topo.apiservers, [lb.spec], topo.controllerManagers, topo.schedulers, topo.addonManagers, metricsServers, topo.workers, autoscalers];
  for (const g of groups) for (const spec of g) sup.add(spec);
  process.on('exit', () => sup.killAllNow());

  say(`data dir ${dataDir} (state ${etcd ? `etcd ${path.join(dataDir, 'etcd')}/` : path.join(dataDir, 'state.db')}, logs ${path.join(dataDir, 'logs')}/)`);
  if (auditPolicyFile) say(`audit logs ${path.join(dataDir, 'logs')}/audit-apiserver-*.log (policy ${auditPolicyFile})`);
  say(`pki ${pkiFiles.dir}/: ${made.length ? `made ${made.join(', ')} in ${((Date.now() - pkiStarted) / 1000).toFixed(1)}s` : 'kept every certificate'}; each component has its own kubeconfig in ${dataDir}/`);
  if (topo.workers.length) say(`workers: ${bootstrapMode.why}`);
  if (topo.addonManagers.length)
    say(`addons ${addons.dir}/${addons.seeded.length ? ` (made with ${addons.seeded.join(', ')})` : ''}: applied every ${formatDuration(f['addon-check-interval'])} by the addon manager`);
  if (etcd) say(`store: etcd, ${etcd.members.length} members ${etcd.servers.join(' ')} (TLS: ${etcd.pki.ca}, ${etcd.pki.cert})`);
  say(`load balancer on ${f.address}:${f.port}: ${lb.reason}`);
  const where = (specs: ComponentSpec[]) => specs.map((c) => `${c.address}:${c.ports['secure-port']}`).join(' ');
  say(`apiservers ${where(topo.apiservers)}${topo.workers.length ? `; nodes (InternalIP:kubelet port) ${where(topo.workers)}` : ''}`);
  for (const kind of topo.missing) say(`${BINARIES[kind].bin}: not implemented yet (packages/${BINARIES[kind].pkg}/src/main.ts is missing), skipped`);

  let stopping: Promise<void> | undefined;
  const shutdown = (why: string): Promise<void> => {
    if (stopping) return stopping;
    say(`${why}: stopping the lab`);
    stopping = (async () => {
      // Workers `kemu join` added are in the first group too.
      const workers = sup.records().filter((r) => r.kind === 'worker').map((r) => r.name);
      await sup.shutdown([
        [...workers, ...[...autoscalers, ...metricsServers, ...topo.addonManagers, ...topo.schedulers, ...topo.controllerManagers].map((s) => s.name)],
        topo.apiservers.map((s) => s.name),
        (etcd?.members ?? []).map((s) => s.name),
        ['lb'],
      ]);
      control.close();
      fs.rmSync(socket, { force: true });
      changed = true;
      flush();
      say('stopped');
    })();
    return stopping;
  };

  const joinContext = { topology: topoOptions, taken, sup, server, lbAddress: f.address, apiserverAddresses: topo.apiservers.map((a) => a.address) };
  const cloud = new NodeGroupCloud(nodeGroupSpecs, {
    start: async (name, g) => {
      const spec = await joinWorker(joinContext, name, undefined, groupKubeletArgs(g));
      say(`node group ${g.name}: ${spec.name} on ${spec.address}:${spec.ports['secure-port']} (cpu ${g.cpu}, memory ${g.memory}, pods ${g.pods})`);
    },
    remove: async (name) => {
      await sup.remove(name);
      // As a cloud-controller-manager does for an instance that is gone: the Node goes with its machine.
      const client = labAdminClient(dataDir);
      const deleted = await deleteNodeOfMachine(client, name)
        .then(() => 'its Node deleted', (e: unknown) => `its Node not deleted (${(e as Error).message}): kubectl delete node ${name}`)
        .finally(() => client.close());
      say(`node group: ${name} stopped and removed, ${deleted}`);
    },
  });
  const control = await serveControl(socket, async (action: Action, name: string | undefined, body) => {
    if (action === 'nodegroup') {
      if (stopping) throw new Error('the lab is shutting down');
      return cloud.handle(name, body);
    }
    if (action === 'down') {
      await shutdown('kemu down');
      setImmediate(() => process.exit(0));
      return 'stopped';
    }
    if (action === 'join') {
      if (stopping) throw new Error('the lab is shutting down');
      const spec = await joinWorker(joinContext, name, body.token);
      const how = bootstrapMode.bootstrap ? `bootstrapping with token ${body.token ? body.token.split('.')[0] : 'of bootstrap-kubelet.kubeconfig'}` : 'with a certificate kemu issued';
      say(`kemu join: ${spec.name} on ${spec.address}:${spec.ports['secure-port']}, ${how}`);
      return `${spec.name} started on ${spec.address}:${spec.ports['secure-port']}, ${how}`;
    }
    if (!name) throw new Error(`kemu ${action} needs a component name; known: ${sup.names().join(', ')}`);
    if (stopping) throw new Error('the lab is shutting down');
    say(`kemu ${action} ${name}`);
    switch (action) {
      case 'stop':
        await sup.stop(name);
        return `stopped ${name} (it stays down until: kemu start ${name})`;
      case 'kill':
        await sup.kill(name);
        return `killed ${name} (it stays down until: kemu start ${name})`;
      case 'pause':
        sup.pause(name);
        return `paused ${name}`;
      case 'unpause':
        sup.unpause(name);
        return `unpaused ${name}`;
      case 'start':
        sup.start(name);
        return `started ${name}`;
    }
  });
  process.on('SIGINT', () => void shutdown('interrupted').then(() => process.exit(0)));
  process.on('SIGTERM', () => void shutdown('terminated').then(() => process.exit(0)));
  process.on('SIGHUP', () => void shutdown('hangup').then(() => process.exit(0)));
  writeState(dataDir, state());

  if (etcd) await startEtcdMembers(etcd);
  for (const a of topo.apiservers) sup.start(a.name);
  sup.start('lb');
  // Clients go through the balancer, so they start once it forwards to a ready apiserver.
  const deadline = Date.now() + 120_000;
  const tls = readLabTls(dataDir);
  while (!stopping && !(await probe(`${server}/readyz`, 1000, tls)).ok) {
    if (Date.now() > deadline) {
      say(`no apiserver became ready through ${server} within 120s; starting the rest anyway (see ${path.join(dataDir, 'logs')}/apiserver-*.log)`);
      break;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!stopping) {
    // Seed 003 section 8 before any kubelet starts: the token Secret, the three bindings, cluster-info, bootstrap-kubelet.kubeconfig.
    await bootstrapObjects();
    for (const s of [...topo.controllerManagers, ...topo.schedulers, ...topo.addonManagers, ...metricsServers, ...topo.workers]) sup.start(s.name);
    if (nodeGroupSpecs.length) {
      await cloud.startMinimum().catch((e: unknown) => say(`node groups: could not start the minimum workers: ${(e as Error).message}`));
      await autoscalerIdentity();
      for (const s of autoscalers) sup.start(s.name);
      say(`node groups ${nodeGroupSpecs.map((g) => `${g.name} (${g.min}..${g.max})`).join(', ')}: cloud config ${path.join(dataDir, 'cloud-config.yaml')}; ${autoscalers.length} cluster-autoscaler(s)`);
    }
    const t0 = Date.now();
    while (!stopping && !sup.records().every((r) => r.state === 'running') && Date.now() - t0 < 90_000)
      await new Promise((r) => setTimeout(r, 200));
    const notUp = sup.records().filter((r) => r.state !== 'running').map((r) => r.name);
    if (!stopping) {
      say(
        notUp.length
          ? `not up yet: ${notUp.join(', ')} (see their logs); the rest is running`
          : `all ${sup.names().length} components up in ${((Date.now() - startedMs) / 1000).toFixed(1)}s`,
      );
      say(`export KUBECONFIG=${kubeconfig}`);
      say(`kemu status --data-dir ${dataDir}   |   kemu logs <name> -f --data-dir ${dataDir}   |   Ctrl-C stops everything`);
    }
  }
  await new Promise<never>(() => undefined);
  return 0;

  /** Starts every member at once (each waits for the others to form a quorum) and waits until all report healthy. */
  async function startEtcdMembers(cluster: EtcdCluster): Promise<void> {
    for (const m of cluster.members) sup.start(m.name);
    const names = new Set(cluster.members.map((m) => m.name));
    const until = Date.now() + 60_000;
    while (!stopping && sup.records().some((r) => names.has(r.name) && r.state !== 'running')) {
      if (Date.now() > until) {
        say(`etcd: not every member healthy within 60s; starting the apiservers anyway (see ${path.join(dataDir, 'logs')}/etcd-*.log)`);
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** The chart's ServiceAccount and roles, and the token kubeconfig the autoscalers run with. */
  async function autoscalerIdentity(): Promise<void> {
    const client = labAdminClient(dataDir);
    const until = Date.now() + 30_000;
    try {
      for (;;) {
        try {
          const made = await ensureClusterAutoscalerIdentity(client, { dataDir, server });
          say(`cluster-autoscaler: ServiceAccount kube-system/cluster-autoscaler${made.length ? ` (made ${made.join(', ')})` : ''}, its token in ${path.join(dataDir, 'cluster-autoscaler.kubeconfig')}`);
          return;
        } catch (e) {
          if (stopping || Date.now() > until) {
            say(`cluster-autoscaler: could not make its ServiceAccount, roles and token (${(e as Error).message})`);
            return;
          }
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    } finally {
      await client.close();
    }
  }

  async function bootstrapObjects(): Promise<void> {
    const client = labAdminClient(dataDir);
    const until = Date.now() + 30_000;
    try {
      for (;;) {
        try {
          const r = await ensureLabBootstrap(client, { dataDir, server });
          say(`tls bootstrap: token ${r.token.split('.')[0]} in ${labPkiFiles(dataDir).bootstrapKubeconfig}${r.made.length ? `; made ${r.made.join(', ')}` : '; kept its Secret, bindings and cluster-info'}`);
          if (metricsServers.length) {
            const port = metricsServers[0]?.ports['secure-port'] ?? 0;
            const ms = await ensureMetricsServerObjects(client, metricsServers.map((m) => m.address), port);
            say(`metrics-server: ${metricsServers.map((m) => `${m.address}:${port}`).join(' ')} behind APIService ${'v1beta1.metrics.k8s.io'} (resolution ${formatDuration(f['metric-resolution'])})${ms.length ? `; made ${ms.join(', ')}` : ''}`);
          }
          return;
        } catch (e) {
          if (stopping || Date.now() > until) {
            say(`tls bootstrap: could not make the bootstrap token and bindings (${(e as Error).message}); kubelets that bootstrap will retry`);
            return;
          }
          await new Promise((r) => setTimeout(r, 500));
        }
      }
    } finally {
      await client.close();
    }
  }
}
