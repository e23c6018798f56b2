// The --audit-* flags of kube-apiserver, their checks (Kubernetes' AuditLogOptions.Validate wording) and
// the audit options they make: a policy from --audit-policy-file and a sink for --audit-log-path ("-" is
// stdout). Events are recorded only when both are given, as in Kubernetes.
import { loadPolicyFile } from './policy.ts';
import { RotatingFileSink, StdoutSink } from './log-writer.ts';
import type { AuditOptions } from './stage.ts';

export const AUDIT_FLAGS = {
  'audit-policy-file': { type: 'string', default: '', usage: 'Path to the file that defines the audit policy configuration.' },
  'audit-log-path': { type: 'string', default: '', usage: 'If set, all requests coming to the apiserver will be logged to this file.  \'-\' means standard out.' },
  'audit-log-maxage': { type: 'int', default: 0, usage: 'The maximum number of days to retain old audit log files based on the timestamp encoded in their filename.' },
  'audit-log-maxbackup': { type: 'int', default: 0, usage: 'The maximum number of old audit log files to retain. Setting a value of 0 will mean there\'s no restriction on the number of files.' },
  'audit-log-maxsize': { type: 'int', default: 0, usage: 'The maximum size in megabytes of the audit log file before it gets rotated.' },
  'audit-log-format': { type: 'string', default: 'json', usage: 'Format of saved audits. "legacy" indicates 1-line text format for each event. "json" indicates structured json format. Known formats are legacy,json.' },
  'audit-log-compress': { type: 'bool', default: false, usage: 'If set, the rotated log files will be compressed using gzip.' },
  'audit-log-mode': { type: 'string', default: 'blocking', usage: 'Strategy for sending audit events. Blocking indicates sending events should block server responses. Batch causes the backend to buffer and write events asynchronously. Known modes are batch,blocking,blocking-strict.' },
} as const;

export interface AuditFlagValues {
  'audit-policy-file': string;
  'audit-log-path': string;
  'audit-log-maxage': number;
  'audit-log-maxbackup': number;
  'audit-log-maxsize': number;
  'audit-log-format': string;
  'audit-log-compress': boolean;
  'audit-log-mode': string;
}

/** Flag errors (exit 2, like other flag errors); empty when the flags are fine. */
export function validateAuditFlags(f: AuditFlagValues): string[] {
  if (f['audit-log-path'] === '') return [];
  const errs: string[] = [];
  const modes = ['batch', 'blocking', 'blocking-strict'];
  if (!modes.includes(f['audit-log-mode'])) errs.push(`invalid audit log mode ${f['audit-log-mode']}, allowed modes are "${modes.join(',')}"`);
  const formats = ['legacy', 'json'];
  if (!formats.includes(f['audit-log-format'])) errs.push(`invalid audit log format ${f['audit-log-format']}, allowed formats are "${formats.join(',')}"`);
  for (const k of ['maxage', 'maxbackup', 'maxsize'] as const) {
    const v = f[`audit-log-${k}`];
    if (v < 0) errs.push(`--audit-log-${k} ${v} can't be a negative number`);
  }
  return errs;
}

/**
 * The audit options, or undefined when nothing is to be recorded. Throws (with Kubernetes' "loading audit
 * policy file: ..." message) when the policy file cannot be read or is not a valid Policy.
 */
export function auditFromFlags(f: AuditFlagValues): AuditOptions | undefined {
  if (f['audit-policy-file'] === '') return undefined;
  let policy;
  try {
    policy = loadPolicyFile(f['audit-policy-file']);
  } catch (e) {
    throw new Error(`loading audit policy file: ${e instanceof Error ? e.message : String(e)}`);
  }
  const file = f['audit-log-path'];
  if (file === '') return undefined;
  const sink =
    file === '-'
      ? new StdoutSink()
      : new RotatingFileSink(file, { maxSizeMB: f['audit-log-maxsize'], maxBackups: f['audit-log-maxbackup'], maxAgeDays: f['audit-log-maxage'], compress: f['audit-log-compress'] });
  return { policy, sink, format: f['audit-log-format'] === 'legacy' ? 'legacy' : 'json' };
}
