// podFailurePolicy: the first rule matching a failed pod decides what its failure does (matchPodFailurePolicy
// in pkg/controller/job/pod_failure_policy.go), with Kubernetes' message for FailJob.
import type { Job, Pod, PodFailurePolicyRule } from '@kemu/api';

export type FailureAction = 'FailJob' | 'FailIndex' | 'Ignore' | 'Count';

export interface PolicyMatch {
  action: FailureAction;
  /** For FailJob: the Failed condition's message. */
  message?: string;
}

function exitCodeMatch(rule: PodFailurePolicyRule, pod: Pod): { container: string; code: number } | undefined {
  const req = rule.onExitCodes;
  if (!req) return undefined;
  const statuses = [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])];
  for (const cs of statuses) {
    if (req.containerName && cs.name !== req.containerName) continue;
    const code = cs.state?.terminated?.exitCode;
    if (code === undefined || code === 0) continue;
    const inValues = req.values.includes(code);
    if ((req.operator === 'In' && inValues) || (req.operator === 'NotIn' && !inValues)) return { container: cs.name, code };
  }
  return undefined;
}

function conditionMatch(rule: PodFailurePolicyRule, pod: Pod): string | undefined {
  for (const pattern of rule.onPodConditions ?? []) {
    const c = pod.status?.conditions?.find((x) => x.type === pattern.type);
    if (c && c.status === (pattern.status || 'True')) return pattern.type;
  }
  return undefined;
}

/** The action for a failed pod; undefined = no rule matched (the failure counts, as Count). */
export function matchPodFailurePolicy(job: Job, pod: Pod): PolicyMatch | undefined {
  const rules = job.spec.podFailurePolicy?.rules ?? [];
  const podRef = `${pod.metadata.namespace ?? ''}/${pod.metadata.name ?? ''}`;
  for (const [i, rule] of rules.entries()) {
    const byCode = exitCodeMatch(rule, pod);
    if (byCode) {
      const message = `Container ${byCode.container} for pod ${podRef} failed with exit code ${byCode.code} matching ${rule.action} rule at index ${i}`;
      return { action: rule.action, message };
    }
    const byCond = conditionMatch(rule, pod);
    if (byCond) return { action: rule.action, message: `Pod ${podRef} has condition ${byCond} matching ${rule.action} rule at index ${i}` };
  }
  return undefined;
}
