// metrics-server's flags (v0.7): its own with their names, defaults and usage strings (durations in ms), and
// k8s.io/apiserver's secure serving and delegated authentication/authorization flags (@kemu/client's table).
import { LOGGING_FORMAT_FLAG, type FlagValues } from '@kemu/base';
import { servingFlags } from '@kemu/client';

export const FLAGS = {
  'metric-resolution': { type: 'duration', default: 60_000, usage: 'The resolution at which metrics-server will retain metrics.' },
  kubeconfig: {
    type: 'string',
    default: '',
    usage: 'The path to the kubeconfig used to connect to the Kubernetes API server and the Kubelets (defaults to in-cluster config)',
  },
  'kubelet-insecure-tls': { type: 'bool', default: false, usage: 'Do not verify CA of serving certificates presented by Kubelets.  For testing purposes only.' },
  'kubelet-use-node-status-port': { type: 'bool', default: false, usage: 'Use the port in the node status. Takes precedence over --kubelet-port flag.' },
  'kubelet-port': { type: 'int', default: 10250, usage: 'The port to use to connect to Kubelets.' },
  'kubelet-preferred-address-types': {
    type: 'string',
    default: 'Hostname,InternalDNS,InternalIP,ExternalDNS,ExternalIP',
    usage: 'The priority of node address types to use when determining which address to use to connect to a particular node',
  },
  'kubelet-certificate-authority': { type: 'string', default: '', usage: "Path to the CA to use to validate the Kubelet's serving certificates." },
  'kubelet-client-key': { type: 'string', default: '', usage: 'Path to a client key file for TLS.' },
  'kubelet-client-certificate': { type: 'string', default: '', usage: 'Path to a client cert file for TLS.' },
  'kubelet-request-timeout': {
    type: 'duration',
    default: 10_000,
    usage: 'The length of time to wait before giving up on a single request to Kubelet. Non-zero values should contain a corresponding time unit (e.g. 1s, 2m, 3h).',
  },
  'node-selector': {
    type: 'string',
    default: '',
    usage: "Selector (label query) to filter on, not including uninitialized ones, supports '=', '==', and '!='.(e.g. -l key1=value1,key2=value2).",
  },
  ...servingFlags({ port: 10250, tolerateLookupFailure: false }),
  v: { type: 'int', default: 0, usage: 'number for the log level verbosity' },
  ...LOGGING_FORMAT_FLAG,
} as const;

export type MetricsServerFlags = Omit<FlagValues<typeof FLAGS>, '_'>;

/** metrics-server's Validate: the messages it exits with. */
export function validateFlags(f: MetricsServerFlags): string[] {
  const errs: string[] = [];
  if (f['kubelet-certificate-authority'] && f['kubelet-insecure-tls']) errs.push('cannot use both --kubelet-certificate-authority and --kubelet-insecure-tls');
  if (!!f['kubelet-client-key'] !== !!f['kubelet-client-certificate']) errs.push('need both --kubelet-client-key and --kubelet-client-certificate');
  if (f['kubelet-request-timeout'] <= 0) errs.push('kubelet-request-timeout should be positive');
  // metrics-server wants at least 10s; kemu takes shorter ones (test labs scrape every few seconds).
  if (f['metric-resolution'] <= 0) errs.push('metric-resolution should be positive');
  return errs;
}
