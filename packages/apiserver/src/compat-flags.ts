// kube-apiserver flags that seed 003's unit (and common unit files) pass but that kemu has nothing behind
// yet: accepted with Kubernetes' names, types and defaults, checked where kube-apiserver checks them at
// start-up (files it loads must load; values it parses must parse, with its words), and each one the user
// set logged once as not in effect (docs/apiserver.md lists them). A flag moves out of here when kemu
// implements it. The --proxy-client-* pair and --enable-aggregator-routing stay here for their start-up
// checks, but are in effect: the aggregator presents the pair and routes as the flag says (aggregator/routing.ts).
import fs from 'node:fs';
import { FEATURE_GATES_FLAG, featureGatesError, goReadFileError, type Logger } from '@kemu/base';
import { readCertAndKey } from '@kemu/pki';

export const COMPAT_FLAGS = {
  'proxy-client-cert-file': { type: 'string', default: '', usage: 'Client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request. This includes proxying requests to a user api-server and calling out to webhook admission plugins.' },
  'proxy-client-key-file': { type: 'string', default: '', usage: 'Private key for the client certificate used to prove the identity of the aggregator or kube-apiserver when it must call out during a request.' },
  'enable-aggregator-routing': { type: 'bool', default: false, usage: 'Turns on aggregator routing requests to endpoints IP rather than cluster IP.' },
  profiling: { type: 'bool', default: true, usage: 'Enable profiling via web interface host:port/debug/pprof/' },
  'enable-swagger-ui': { type: 'bool', default: false, usage: 'Enables swagger ui on the apiserver at /swagger-ui (removed from Kubernetes; accepted for older unit files).' },
  'apiserver-count': { type: 'int', default: 1, usage: 'The number of apiservers running in the cluster, must be a positive number. (In use when --endpoint-reconciler-type=master-count is enabled.)' },
  'runtime-config': { type: 'stringArray', default: [], usage: 'A set of key=value pairs that enable or disable built-in APIs.' },
  ...FEATURE_GATES_FLAG,
  'cors-allowed-origins': { type: 'stringArray', default: [], usage: 'List of allowed origins for CORS, comma separated. An allowed origin can be a regular expression to support subdomain matching.' },
  'external-hostname': { type: 'string', default: '', usage: 'The hostname to use when generating externalized URLs for this master (e.g. Swagger API Docs or OpenID Discovery).' },
  'storage-media-type': { type: 'string', default: 'application/vnd.kubernetes.protobuf', usage: 'The media type to use to store objects in storage.' },
  'encryption-provider-config': { type: 'string', default: '', usage: 'The file containing configuration for encryption providers to be used for storing secrets in etcd' },
} as const;

type CompatFlag = keyof typeof COMPAT_FLAGS;

export interface CompatFlagValues {
  'proxy-client-cert-file': string;
  'proxy-client-key-file': string;
  'enable-aggregator-routing': boolean;
  profiling: boolean;
  'enable-swagger-ui': boolean;
  'apiserver-count': number;
  'runtime-config': string[];
  'feature-gates': string[];
  'cors-allowed-origins': string[];
  'external-hostname': string;
  'storage-media-type': string;
  'encryption-provider-config': string;
}

/** Why each flag does nothing in kemu (the log line and docs/apiserver.md say the same); absent: in effect. */
export const NOT_IN_EFFECT: Partial<Record<CompatFlag, string>> = {
  profiling: 'kemu serves no /debug/pprof',
  'enable-swagger-ui': 'kemu serves no Swagger UI',
  'apiserver-count': 'the lease endpoint reconciler counts live apiservers itself',
  'runtime-config': 'every built-in API kemu serves is always on',
  'feature-gates': 'kemu has no feature gates',
  'cors-allowed-origins': 'kemu sends no CORS headers',
  'external-hostname': 'kemu generates no externalized URLs',
  'storage-media-type': 'kemu stores objects as JSON',
  'encryption-provider-config': 'Secrets are stored unencrypted',
};

const MEDIA_TYPES = ['application/json', 'application/yaml', 'application/vnd.kubernetes.protobuf'];

export interface FlagFailure {
  /** 2 for a value that does not parse (as pflag), 1 for a start-up failure (as cobra's RunE). */
  code: 1 | 2;
  message: string;
}


/** A client certificate/key pair kube-apiserver loads at start-up (only when both are given, as Kubernetes uses it). */
export function checkClientPair(cert: string, key: string): FlagFailure | undefined {
  if (cert === '' || key === '') return undefined;
  for (const file of [cert, key]) {
    try {
      fs.accessSync(file, fs.constants.R_OK);
      if (fs.statSync(file).isDirectory()) throw Object.assign(new Error('is a directory'), { code: 'EISDIR' });
    } catch (e) {
      return { code: 1, message: goReadFileError(file, e) };
    }
  }
  try {
    readCertAndKey(cert, key);
  } catch (e) {
    return { code: 1, message: `invalid client certificate/key pair ${cert}, ${key}: ${e instanceof Error ? e.message : String(e)}` };
  }
  return undefined;
}

/** The first failure kube-apiserver would stop on, or undefined when the flags are fine. */
export function checkCompatFlags(f: CompatFlagValues): FlagFailure | undefined {
  const gates = featureGatesError(f['feature-gates']);
  if (gates) return { code: 2, message: gates };
  if (f['apiserver-count'] <= 0) return { code: 1, message: `--apiserver-count should be a positive number, but value '${f['apiserver-count']}' provided` };
  if (!MEDIA_TYPES.includes(f['storage-media-type']))
    return { code: 1, message: `--storage-media-type "${f['storage-media-type']}" invalid, allowed values: ${MEDIA_TYPES.join(', ')}` };
  for (const origin of f['cors-allowed-origins']) {
    try {
      new RegExp(origin);
    } catch (e) {
      return { code: 1, message: `--cors-allowed-origins has an invalid regular expression: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  // Files kube-apiserver loads while building its config: a bad one stops it.
  const proxyPair = checkClientPair(f['proxy-client-cert-file'], f['proxy-client-key-file']);
  if (proxyPair) return proxyPair;
  const encryption = f['encryption-provider-config'];
  if (encryption !== '') {
    try {
      fs.readFileSync(encryption, 'utf8');
    } catch (e) {
      return { code: 1, message: goReadFileError(encryption, e) };
    }
  }
  return undefined;
}

function isDefault(name: CompatFlag, value: unknown): boolean {
  return JSON.stringify(value) === JSON.stringify(COMPAT_FLAGS[name].default);
}

/** One line per flag given a non-default value: accepted, not in effect, and why. */
export function logNotInEffect(f: CompatFlagValues, logger: Logger): void {
  for (const name of Object.keys(COMPAT_FLAGS) as CompatFlag[]) {
    const why = NOT_IN_EFFECT[name];
    if (why === undefined || isDefault(name, f[name])) continue;
    logger.info({ flag: `--${name}`, value: f[name] }, `Flag accepted but not in effect in kemu: ${why}`);
  }
  const [cert, key] = [f['proxy-client-cert-file'], f['proxy-client-key-file']];
  if ((cert === '') !== (key === '')) logger.warn({}, '--proxy-client-cert-file and --proxy-client-key-file are used only together; the one given is ignored');
}
