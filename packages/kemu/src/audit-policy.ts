// The audit policy `kemu up` gives its apiservers unless --audit-policy-file names another: Metadata
// (who did what to which object, and the outcome) for every request, except the traffic that would drown
// it — health and discovery polling, Lease renewals (leader election, node heartbeats, apiserver identity)
// and Events. RequestReceived is left out: ResponseComplete carries everything it has.
import fs from 'node:fs';
import path from 'node:path';

export const DEFAULT_AUDIT_POLICY = `# Written by kemu up (edit it and restart the lab, or pass kemu up --audit-policy-file).
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
# Health checks, metrics and discovery polling.
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/metrics", "/version", "/openapi/*", "/api", "/api/*", "/apis", "/apis/*"]
# Lease renewals: leader election, node heartbeats, apiserver identity. (Without authentication every
# caller is the admin, so the rule cannot single out system components yet.)
- level: None
  verbs: ["get", "update", "watch"]
  resources: [{group: "coordination.k8s.io", resources: ["leases"]}]
# Events are a record of their own.
- level: None
  resources: [{group: "", resources: ["events"]}, {group: "events.k8s.io", resources: ["events"]}]
- level: Metadata
`;

/** Writes the default policy into the data dir unless one is there (the user may have edited it); returns its path. */
export function writeDefaultAuditPolicy(dataDir: string): string {
  const file = path.join(dataDir, 'audit-policy.yaml');
  if (!fs.existsSync(file)) fs.writeFileSync(file, DEFAULT_AUDIT_POLICY);
  return file;
}
