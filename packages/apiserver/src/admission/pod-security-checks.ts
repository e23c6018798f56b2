// The Pod Security Standards checks (k8s.io/pod-security-admission/policy) over a pod spec: each returns
// Kubernetes' forbidden reason and detail, or undefined when the pod passes. Baseline checks first, then
// restricted, in Kubernetes' order; restricted replaces two baseline checks with stricter ones.
import { isObj, joinQuote, pluralize } from './types.ts';

type Obj = Record<string, unknown>;

export interface CheckResult {
  reason: string;
  detail?: string;
}

export interface Check {
  id: string;
  level: 'baseline' | 'restricted';
  /** Baseline checks this restricted check replaces. */
  overrides?: readonly string[];
  run(meta: Obj, spec: Obj): CheckResult | undefined;
}

interface Container {
  name: string;
  sc: Obj | undefined;
  raw: Obj;
}

/** initContainers, containers, ephemeralContainers, as Kubernetes' visitContainers walks them. */
function containers(spec: Obj): Container[] {
  const out: Container[] = [];
  for (const list of ['initContainers', 'containers', 'ephemeralContainers']) {
    const cs = spec[list];
    if (!Array.isArray(cs)) continue;
    for (const c of cs) {
      if (!isObj(c)) continue;
      out.push({ name: typeof c.name === 'string' ? c.name : '', sc: isObj(c.securityContext) ? c.securityContext : undefined, raw: c });
    }
  }
  return out;
}

const podSC = (spec: Obj): Obj | undefined => (isObj(spec.securityContext) ? spec.securityContext : undefined);
const names = (cs: readonly string[]): string => `${pluralize('container', 'containers', cs.length)} ${joinQuote(cs)}`;
const sortedUnique = (xs: Iterable<string>): string[] => [...new Set(xs)].sort();
const capsOf = (sc: Obj | undefined): Obj | undefined => (sc && isObj(sc.capabilities) ? sc.capabilities : undefined);
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
const SAFE_SYSCTLS = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start', 'net.ipv4.ip_local_reserved_ports', 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes']);
const RESTRICTED_VOLUME_SOURCES = new Set(['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret']);

/** A restricted-check shape shared by runAsNonRoot and seccompProfile: pod-level setting, container overrides. */
function podOrContainers(
  spec: Obj,
  read: (sc: Obj | undefined) => unknown,
  good: (v: unknown) => boolean,
  reason: string,
  badText: (setters: string, values: string[]) => string,
  missingText: (containers: string) => string,
): CheckResult | undefined {
  const badSetters: string[] = [];
  const badValues: string[] = [];
  const podValue = read(podSC(spec));
  let podOK = false;
  if (podValue !== undefined) {
    if (good(podValue)) podOK = true;
    else {
      badSetters.push('pod');
      badValues.push(String(podValue));
    }
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(spec)) {
    const v = read(c.sc);
    if (v !== undefined) {
      if (!good(v)) {
        explicit.push(c.name);
        badValues.push(String(v));
      }
    } else if (!podOK) implicit.push(c.name);
  }
  if (explicit.length > 0) badSetters.push(names(explicit));
  if (badSetters.length > 0) return { reason, detail: badText(badSetters.join(' and '), sortedUnique(badValues)) };
  if (implicit.length > 0) return { reason, detail: missingText(names(implicit)) };
  return undefined;
}

const seccompType = (sc: Obj | undefined): unknown => (sc && isObj(sc.seccompProfile) ? (sc.seccompProfile.type ?? '') : undefined);

export const CHECKS: readonly Check[] = [
  {
    id: 'capabilities_baseline',
    level: 'baseline',
    run(_m, spec) {
      const bad: string[] = [];
      const caps: string[] = [];
      for (const c of containers(spec)) {
        const added = strings(capsOf(c.sc)?.add).filter((x) => !BASELINE_CAPABILITIES.has(x));
        if (added.length > 0) {
          bad.push(c.name);
          caps.push(...added);
        }
      }
      return bad.length ? { reason: 'non-default capabilities', detail: `${names(bad)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add` } : undefined;
    },
  },
  {
    id: 'hostNamespaces',
    level: 'baseline',
    run(_m, spec) {
      const ns = (['hostNetwork', 'hostPID', 'hostIPC'] as const).filter((k) => spec[k] === true);
      return ns.length ? { reason: 'host namespaces', detail: ns.map((k) => `${k}=true`).join(', ') } : undefined;
    },
  },
  {
    id: 'hostPathVolumes',
    level: 'baseline',
    run(_m, spec) {
      const vols = (Array.isArray(spec.volumes) ? spec.volumes : []).filter((v: unknown): v is Obj => isObj(v) && v.hostPath !== undefined).map((v) => String(v.name ?? ''));
      return vols.length ? { reason: 'hostPath volumes', detail: `${pluralize('volume', 'volumes', vols.length)} ${joinQuote(vols)}` } : undefined;
    },
  },
  {
    id: 'hostPorts',
    level: 'baseline',
    run(_m, spec) {
      const bad: string[] = [];
      const ports: string[] = [];
      for (const c of containers(spec)) {
        const hp = (Array.isArray(c.raw.ports) ? c.raw.ports : []).filter((p: unknown): p is Obj => isObj(p) && typeof p.hostPort === 'number' && p.hostPort !== 0).map((p) => String(p.hostPort));
        if (hp.length) {
          bad.push(c.name);
          ports.push(...hp);
        }
      }
      const list = sortedUnique(ports);
      return bad.length
        ? { reason: 'hostPort', detail: `${names(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', list.length)} ${list.join(', ')}` }
        : undefined;
    },
  },
  {
    id: 'privileged',
    level: 'baseline',
    run(_m, spec) {
      const bad = containers(spec).filter((c) => c.sc?.privileged === true).map((c) => c.name);
      return bad.length ? { reason: 'privileged', detail: `${names(bad)} must not set securityContext.privileged=true` } : undefined;
    },
  },
  {
    id: 'procMount',
    level: 'baseline',
    run(_m, spec) {
      const bad: string[] = [];
      const values: string[] = [];
      for (const c of containers(spec)) {
        const pm = c.sc?.procMount;
        if (typeof pm === 'string' && pm !== 'Default') {
          bad.push(c.name);
          values.push(pm);
        }
      }
      return bad.length ? { reason: 'procMount', detail: `${names(bad)} must not set securityContext.procMount to ${joinQuote(sortedUnique(values))}` } : undefined;
    },
  },
  {
    id: 'seccompProfile_baseline',
    level: 'baseline',
    run(_m, spec) {
      const setters: string[] = [];
      if (seccompType(podSC(spec)) === 'Unconfined') setters.push('pod');
      const bad = containers(spec).filter((c) => seccompType(c.sc) === 'Unconfined').map((c) => c.name);
      if (bad.length) setters.push(names(bad));
      return setters.length ? { reason: 'seccompProfile', detail: `${setters.join(' and ')} must not set securityContext.seccompProfile.type to "Unconfined"` } : undefined;
    },
  },
  {
    id: 'sysctls',
    level: 'baseline',
    run(_m, spec) {
      const sysctls = podSC(spec)?.sysctls;
      const bad = (Array.isArray(sysctls) ? sysctls : []).filter((s: unknown): s is Obj => isObj(s) && typeof s.name === 'string' && !SAFE_SYSCTLS.has(s.name)).map((s) => String(s.name));
      return bad.length ? { reason: 'forbidden sysctls', detail: bad.join(', ') } : undefined;
    },
  },
  {
    id: 'allowPrivilegeEscalation',
    level: 'restricted',
    run(_m, spec) {
      const bad = containers(spec).filter((c) => c.sc?.allowPrivilegeEscalation !== false).map((c) => c.name);
      return bad.length ? { reason: 'allowPrivilegeEscalation != false', detail: `${names(bad)} must set securityContext.allowPrivilegeEscalation=false` } : undefined;
    },
  },
  {
    id: 'capabilities_restricted',
    level: 'restricted',
    run(_m, spec) {
      const missingDrop: string[] = [];
      const adding: string[] = [];
      const caps: string[] = [];
      for (const c of containers(spec)) {
        const cap = capsOf(c.sc);
        if (!cap) {
          missingDrop.push(c.name);
          continue;
        }
        if (!strings(cap.drop).includes('ALL')) missingDrop.push(c.name);
        const added = strings(cap.add).filter((x) => x !== 'NET_BIND_SERVICE');
        if (added.length) {
          adding.push(c.name);
          caps.push(...added);
        }
      }
      const details: string[] = [];
      if (missingDrop.length) details.push(`${names(missingDrop)} must set securityContext.capabilities.drop=["ALL"]`);
      if (adding.length) details.push(`${names(adding)} must not include ${joinQuote(sortedUnique(caps))} in securityContext.capabilities.add`);
      return details.length ? { reason: 'unrestricted capabilities', detail: details.join('; ') } : undefined;
    },
  },
  {
    id: 'restrictedVolumes',
    level: 'restricted',
    overrides: ['hostPathVolumes'],
    run(_m, spec) {
      const badVolumes: string[] = [];
      const badTypes: string[] = [];
      for (const v of Array.isArray(spec.volumes) ? spec.volumes : []) {
        if (!isObj(v)) continue;
        const sources = Object.keys(v).filter((k) => k !== 'name');
        if (sources.some((s) => RESTRICTED_VOLUME_SOURCES.has(s))) continue;
        badVolumes.push(String(v.name ?? ''));
        badTypes.push(...sources);
      }
      const types = sortedUnique(badTypes);
      return badVolumes.length
        ? {
            reason: 'restricted volume types',
            detail: `${pluralize('volume', 'volumes', badVolumes.length)} ${joinQuote(badVolumes)} ${pluralize('uses', 'use', badVolumes.length)} ${pluralize('restricted volume type', 'restricted volume types', types.length)} ${joinQuote(types)}`,
          }
        : undefined;
    },
  },
  {
    id: 'runAsNonRoot',
    level: 'restricted',
    run(_m, spec) {
      return podOrContainers(
        spec,
        (sc) => (typeof sc?.runAsNonRoot === 'boolean' ? sc.runAsNonRoot : undefined),
        (v) => v === true,
        'runAsNonRoot != true',
        (setters) => `${setters} must not set securityContext.runAsNonRoot=false`,
        (cs) => `pod or ${cs} must set securityContext.runAsNonRoot=true`,
      );
    },
  },
  {
    id: 'runAsUser',
    level: 'restricted',
    run(_m, spec) {
      const setters: string[] = [];
      if (podSC(spec)?.runAsUser === 0) setters.push('pod');
      const bad = containers(spec).filter((c) => c.sc?.runAsUser === 0).map((c) => c.name);
      if (bad.length) setters.push(names(bad));
      return setters.length ? { reason: 'runAsUser=0', detail: `${setters.join(' and ')} must not set runAsUser=0` } : undefined;
    },
  },
  {
    id: 'seccompProfile_restricted',
    level: 'restricted',
    overrides: ['seccompProfile_baseline'],
    run(_m, spec) {
      return podOrContainers(
        spec,
        seccompType,
        (v) => v === 'RuntimeDefault' || v === 'Localhost',
        'seccompProfile',
        (setters, values) => `${setters} must not set securityContext.seccompProfile.type to ${joinQuote(values)}`,
        (cs) => `pod or ${cs} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`,
      );
    },
  },
];

export type Level = 'privileged' | 'baseline' | 'restricted';

/** The checks a level runs, in order. */
export function checksFor(level: Level): Check[] {
  if (level === 'privileged') return [];
  if (level === 'baseline') return CHECKS.filter((c) => c.level === 'baseline');
  const overridden = new Set(CHECKS.flatMap((c) => c.overrides ?? []));
  return CHECKS.filter((c) => !overridden.has(c.id));
}

/** The failed checks of a pod at a level, in order. */
export function failures(level: Level, meta: Obj, spec: Obj): CheckResult[] {
  const failed: CheckResult[] = [];
  for (const c of checksFor(level)) {
    const r = c.run(meta, spec);
    if (r) failed.push(r);
  }
  return failed;
}

/** Kubernetes' aggregate text: `reason (detail), reason (detail)`; empty when the pod passes. */
export function evaluate(level: Level, meta: Obj, spec: Obj): string {
  return failures(level, meta, spec)
    .map((r) => (r.detail ? `${r.reason} (${r.detail})` : r.reason))
    .join(', ');
}
