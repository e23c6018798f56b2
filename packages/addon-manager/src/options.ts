// kube-addon-manager's settings. The real addon manager is a script configured by environment variables; kemu's
// takes flags whose defaults come from those variables, so either way works:
//   ADDON_PATH (--addons-dir, /etc/kubernetes/addons), TEST_ADDON_CHECK_INTERVAL_SEC (--period, 60s),
//   KUBECTL_EXTRA_PRUNE_WHITELIST (--extra-prune-allowlist), ADDON_MANAGER_LEADER_ELECTION (--leader-elect, true).
import { LOGGING_FORMAT_FLAG, type FlagValues } from '@kemu/base';
import { leaderElectionFlags } from '@kemu/client';

export const LEASE_NAME = 'kube-addon-manager';

function envSeconds(v: string | undefined, fallback: number): number {
  const n = Number(v);
  return v !== undefined && v !== '' && Number.isFinite(n) && n > 0 ? n * 1000 : fallback;
}

export function addonManagerFlags(env: NodeJS.ProcessEnv = process.env) {
  const le = leaderElectionFlags(LEASE_NAME);
  return {
    'addons-dir': { type: 'string', default: env.ADDON_PATH || '/etc/kubernetes/addons', usage: 'The directory of addon manifests (*.yaml, *.yml, *.json, read recursively). Default from ADDON_PATH.' },
    period: {
      type: 'duration',
      default: envSeconds(env.TEST_ADDON_CHECK_INTERVAL_SEC, 60_000),
      usage: 'How often the addons are ensured and reconciled. Default from TEST_ADDON_CHECK_INTERVAL_SEC (seconds), else 60s.',
    },
    'extra-prune-allowlist': {
      type: 'string',
      default: env.KUBECTL_EXTRA_PRUNE_WHITELIST ?? '',
      usage: 'Kinds that may be pruned besides the default list, as group/version/Kind ("core" for the core group), space- or comma-separated. Default from KUBECTL_EXTRA_PRUNE_WHITELIST.',
    },
    'default-namespace': { type: 'string', default: 'default', usage: 'The namespace of namespaced manifests that name none.' },
    kubeconfig: { type: 'string', default: '', usage: 'Path to a kubeconfig file with the API server location and credentials.' },
    master: { type: 'string', default: '', usage: 'The address of the Kubernetes API server (overrides any value in kubeconfig)' },
    ...le,
    'leader-elect': { ...le['leader-elect'], default: env.ADDON_MANAGER_LEADER_ELECTION !== 'false' },
    'hostname-override': { type: 'string', default: '', usage: 'If non-empty, will use this string as identification instead of the actual hostname.' },
    v: { type: 'int', default: 0, usage: 'number for the log level verbosity' },
    ...LOGGING_FORMAT_FLAG,
  } as const;
}

export type AddonManagerFlags = Omit<FlagValues<ReturnType<typeof addonManagerFlags>>, '_'>;
