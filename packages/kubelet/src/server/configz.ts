// The kubelet's /configz (component-base's configz, registered by cmd/kubelet as "kubeletconfig"): the
// KubeletConfiguration it runs with, converted to v1beta1 (no kind/apiVersion: the struct is set bare) and
// defaulted, as JSON under {"kubeletconfig": …}. It sits on the API port, authorized as nodes/proxy (any path
// the kubelet does not map to stats/metrics/log is), so `kubectl get --raw /api/v1/nodes/<n>/proxy/configz`
// reaches it. Fields kemu's flags set come from them; the rest are the kubelet's defaults.
import type http from 'node:http';
import { formatDuration, type HealthRoutes } from '@kemu/base';
import type { KubeletFlags } from '../options.ts';

/** The defaulted v1beta1 KubeletConfiguration for these flags (JSON field names and order as the kubelet's). */
export function kubeletConfiguration(f: KubeletFlags): Record<string, unknown> {
  return {
    enableServer: true,
    podLogsDir: '/var/log/pods',
    syncFrequency: '1m0s',
    fileCheckFrequency: '20s',
    httpCheckFrequency: '20s',
    address: f['bind-address'],
    port: f['secure-port'],
    ...(f['tls-cert-file'] ? { tlsCertFile: f['tls-cert-file'], tlsPrivateKeyFile: f['tls-private-key-file'] } : {}),
    ...(f['rotate-certificates'] ? { rotateCertificates: true } : {}),
    ...(f['rotate-server-certificates'] ? { serverTLSBootstrap: true } : {}),
    authentication: {
      x509: f['client-ca-file'] ? { clientCAFile: f['client-ca-file'] } : {},
      webhook: { enabled: f['authentication-token-webhook'], cacheTTL: formatDuration(f['authentication-token-webhook-cache-ttl']) },
      anonymous: { enabled: f['anonymous-auth'] },
    },
    authorization: {
      mode: f['authorization-mode'],
      webhook: { cacheAuthorizedTTL: formatDuration(f['authorization-webhook-cache-authorized-ttl']), cacheUnauthorizedTTL: formatDuration(f['authorization-webhook-cache-unauthorized-ttl']) },
    },
    registryPullQPS: 5,
    registryBurst: 10,
    eventRecordQPS: 50,
    eventBurst: 100,
    enableDebuggingHandlers: true,
    healthzPort: f['healthz-port'],
    healthzBindAddress: f['healthz-bind-address'],
    oomScoreAdj: -999,
    streamingConnectionIdleTimeout: '4h0m0s',
    nodeStatusUpdateFrequency: formatDuration(f['node-status-update-frequency']),
    nodeStatusReportFrequency: formatDuration(f['node-status-report-frequency']),
    nodeLeaseDurationSeconds: f['node-lease-duration-seconds'],
    imageMinimumGCAge: '2m0s',
    imageMaximumGCAge: '0s',
    imageGCHighThresholdPercent: 85,
    imageGCLowThresholdPercent: 80,
    volumeStatsAggPeriod: '1m0s',
    cgroupsPerQOS: true,
    cgroupDriver: 'cgroupfs',
    cpuManagerPolicy: 'none',
    cpuManagerReconcilePeriod: '10s',
    memoryManagerPolicy: 'None',
    topologyManagerPolicy: 'none',
    topologyManagerScope: 'container',
    runtimeRequestTimeout: '2m0s',
    hairpinMode: 'promiscuous-bridge',
    maxPods: f['max-pods'],
    podPidsLimit: -1,
    resolvConf: '/etc/resolv.conf',
    cpuCFSQuota: true,
    cpuCFSQuotaPeriod: '100ms',
    nodeStatusMaxImages: 50,
    maxOpenFiles: 1000000,
    contentType: 'application/vnd.kubernetes.protobuf',
    kubeAPIQPS: f['kube-api-qps'],
    kubeAPIBurst: f['kube-api-burst'],
    serializeImagePulls: true,
    evictionHard: { 'imagefs.available': '15%', 'imagefs.inodesFree': '5%', 'memory.available': '100Mi', 'nodefs.available': '10%', 'nodefs.inodesFree': '5%' },
    evictionPressureTransitionPeriod: '5m0s',
    enableControllerAttachDetach: true,
    makeIPTablesUtilChains: true,
    iptablesMasqueradeBit: 14,
    iptablesDropBit: 15,
    failSwapOn: true,
    memorySwap: {},
    containerLogMaxSize: f['container-log-max-size'],
    containerLogMaxFiles: f['container-log-max-files'],
    containerLogMaxWorkers: 1,
    containerLogMonitorInterval: '10s',
    configMapAndSecretChangeDetectionStrategy: 'Watch',
    enforceNodeAllocatable: ['pods'],
    volumePluginDir: '/usr/libexec/kubernetes/kubelet-plugins/volume/exec/',
    logging: {
      format: f['logging-format'],
      flushFrequency: '5s',
      verbosity: f.v,
      options: { text: { infoBufferSize: '0' }, json: { infoBufferSize: '0' } },
    },
    enableSystemLogHandler: true,
    enableSystemLogQuery: false,
    shutdownGracePeriod: '0s',
    shutdownGracePeriodCriticalPods: '0s',
    enableProfilingHandler: true,
    enableDebugFlagsHandler: true,
    seccompDefault: false,
    memoryThrottlingFactor: 0.9,
    registerNode: f['register-node'],
    localStorageCapacityIsolation: true,
    containerRuntimeEndpoint: 'unix:///run/containerd/containerd.sock',
  };
}

/** /configz on the kubelet's API port; other paths are left to the next routes. */
export function configzRoutes(flags: KubeletFlags): HealthRoutes {
  const body = JSON.stringify({ kubeletconfig: kubeletConfiguration(flags) });
  return (_req: http.IncomingMessage, res: http.ServerResponse, path: string) => {
    if (path !== '/configz') return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
    return true;
  };
}
