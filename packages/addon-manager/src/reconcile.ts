// One pass of kube-addon-manager over the loaded manifests, in the real script's order:
//   ensure_addons    — `kubectl create -l addonmanager.kubernetes.io/mode=EnsureExists`: create, AlreadyExists is fine;
//   reconcile_addons — `kubectl apply -l <Reconcile selectors> --prune --prune-whitelist ...`: apply every
//                      Reconcile object, then, only if nothing failed, delete the allowlisted objects that carry
//                      the label, were applied by us and whose manifest is gone.
// kemu applies with server-side apply (fieldManager kube-addon-manager, force): fields the manifest sets are
// taken back from whoever changed them (drift reverted), fields it does not set are left to their owners — what
// kubectl's three-way client-side apply does for the real script. "Applied by us" is an Apply entry of our
// field manager in managedFields (kubectl looks for its last-applied-configuration annotation). As kubectl
// apply --prune, namespaced kinds are pruned only in the namespaces the applied manifests name.
import { StatusError, findResourceByKind, type KubeObject, type ResourceInfo } from '@kemu/api';
import type { Logger } from '@kemu/base';
import type { RestClient } from '@kemu/client';
import { RECONCILE_SELECTORS, addonMode } from './labels.ts';
import type { LoadedManifests, Manifest } from './manifests.ts';
import { DEFAULT_PRUNE_ALLOWLIST, parseAllowlistEntry } from './prune-allowlist.ts';

export const FIELD_MANAGER = 'kube-addon-manager';

export interface ReconcilerOptions {
  client: RestClient;
  logger: Logger;
  /** Server-side apply's field manager (default kube-addon-manager). */
  fieldManager?: string;
  /** The namespace of namespaced manifests that name none (kubectl's context namespace; default "default"). */
  defaultNamespace?: string;
  /** Kinds that may be pruned (default: the script's KUBECTL_PRUNE_WHITELIST). */
  pruneAllowlist?: readonly ResourceInfo[];
}

export interface CycleReport {
  /** EnsureExists objects created this pass ("configmap/x"). */
  created: string[];
  /** Reconcile objects applied, each "<ref> created|configured|unchanged" (configured: drift reverted). */
  applied: string[];
  /** Objects deleted because their manifest is gone. */
  pruned: string[];
  /** Manifests without a mode the addon manager acts on. */
  ignored: string[];
  errors: string[];
  /** Why nothing was pruned this pass, when pruning was skipped. */
  pruneSkipped?: string;
}

/** kubectl's name for an object: "deployment.apps/coredns", "service/kube-dns". */
export function objectRef(r: ResourceInfo, name: string): string {
  return `${r.singular}${r.group ? `.${r.group}` : ''}/${name}`;
}

const identity = (r: ResourceInfo, namespace: string | undefined, name: string) => `${r.group}/${r.kind}/${r.namespaced ? (namespace ?? '') : ''}/${name}`;

interface Resolved {
  m: Manifest;
  r: ResourceInfo;
  namespace: string | undefined;
  name: string;
  body: KubeObject;
}

export class AddonReconciler {
  private readonly client: RestClient;
  private readonly logger: Logger;
  private readonly fieldManager: string;
  private readonly defaultNamespace: string;
  private readonly allowlist: readonly ResourceInfo[];
  private readonly ignoredSeen = new Set<string>();

  constructor(o: ReconcilerOptions) {
    this.client = o.client;
    this.logger = o.logger;
    this.fieldManager = o.fieldManager ?? FIELD_MANAGER;
    this.defaultNamespace = o.defaultNamespace ?? 'default';
    this.allowlist = o.pruneAllowlist ?? DEFAULT_PRUNE_ALLOWLIST.map(parseAllowlistEntry);
  }

  async cycle(loaded: LoadedManifests): Promise<CycleReport> {
    const report: CycleReport = { created: [], applied: [], pruned: [], ignored: [], errors: [] };
    for (const e of loaded.errors) report.errors.push(`error: ${e.file}: ${e.message}`);
    const ensure: Resolved[] = [];
    const reconcile: Resolved[] = [];
    for (const m of loaded.manifests) {
      const mode = addonMode(m.object);
      if (mode === 'Ignore') {
        const what = `${m.object.kind}/${m.object.metadata.name ?? ''} in ${m.file}`;
        report.ignored.push(what);
        // Said once per object: the real script's label selectors skip such objects without a word every period.
        if (!this.ignoredSeen.has(what)) {
          this.ignoredSeen.add(what);
          this.logger.info({ file: m.file, kind: m.object.kind, name: m.object.metadata.name }, 'Ignoring manifest without addonmanager.kubernetes.io/mode=Reconcile or EnsureExists');
        }
        continue;
      }
      const resolved = this.resolve(m);
      if (typeof resolved === 'string') {
        report.errors.push(resolved);
        continue;
      }
      (mode === 'EnsureExists' ? ensure : reconcile).push(resolved);
    }

    for (const o of ensure) await this.ensureOne(o, report);
    this.logger.info(`== Kubernetes addon ensure completed at ${new Date().toISOString()} ==`);

    const errorsBeforeApply = report.errors.length;
    for (const o of reconcile) await this.applyOne(o, report);
    if (reconcile.length === 0) report.pruneSkipped = 'no objects passed to apply';
    else if (report.errors.length > 0) report.pruneSkipped = `${report.errors.length} error(s) (${errorsBeforeApply} before applying)`;
    else await this.prune(reconcile, report);
    this.logger.info(`== Kubernetes addon reconcile completed at ${new Date().toISOString()} ==`);
    for (const e of report.errors) this.logger.error(e);
    return report;
  }

  private resolve(m: Manifest): Resolved | string {
    const { apiVersion = '', kind = '' } = m.object;
    const name = m.object.metadata.name ?? '';
    const r = findResourceByKind(apiVersion, kind);
    if (!r || !r.verbs.includes('patch') || !r.verbs.includes('create')) {
      return `error: resource mapping not found for name: "${name}" namespace: "${m.object.metadata.namespace ?? ''}" from "${m.file}": no matches for kind "${kind}" in version "${apiVersion}"`;
    }
    const body = structuredClone(m.object);
    let namespace: string | undefined;
    if (r.namespaced) body.metadata.namespace = namespace = m.object.metadata.namespace || this.defaultNamespace;
    else delete body.metadata.namespace;
    return { m, r, namespace, name, body };
  }

  private async ensureOne(o: Resolved, report: CycleReport): Promise<void> {
    const ref = objectRef(o.r, o.name);
    try {
      await this.client.create(o.r, o.namespace, o.body, { fieldManager: this.fieldManager });
      report.created.push(ref);
      this.logger.info(`${ref} created`);
    } catch (e) {
      if (e instanceof StatusError && e.reason === 'AlreadyExists') return;
      report.errors.push(`Error from server (${reasonOf(e)}): error when creating "${o.m.file}": ${(e as Error).message}`);
    }
  }

  private async applyOne(o: Resolved, report: CycleReport): Promise<void> {
    const ref = objectRef(o.r, o.name);
    try {
      // Read first, as kubectl apply does: the answer tells created, configured (drift reverted) and unchanged
      // apart (an apply that changes nothing writes nothing, so the resourceVersion stays).
      let before: string | undefined;
      try {
        before = (await this.client.get<KubeObject>(o.r, o.namespace, o.name)).metadata.resourceVersion;
      } catch (e) {
        if (!(e instanceof StatusError && e.reason === 'NotFound')) throw e;
      }
      const live = await this.client.patch<KubeObject>(o.r, o.namespace, o.name, o.body, 'apply', { fieldManager: this.fieldManager, force: true });
      const verb = before === undefined ? 'created' : before === live.metadata.resourceVersion ? 'unchanged' : 'configured';
      report.applied.push(`${ref} ${verb}`);
      if (verb !== 'unchanged') this.logger.info(`${ref} ${verb}`);
    } catch (e) {
      report.errors.push(`Error from server (${reasonOf(e)}): error when applying patch to "${o.m.file}": ${(e as Error).message}`);
    }
  }

  private async prune(applied: Resolved[], report: CycleReport): Promise<void> {
    const keep = new Set(applied.map((o) => identity(o.r, o.namespace, o.name)));
    const namespaces = [...new Set(applied.flatMap((o) => (o.namespace ? [o.namespace] : [])))].sort();
    for (const r of this.allowlist) {
      for (const ns of r.namespaced ? namespaces : [undefined]) {
        const seen = new Set<string>();
        for (const labelSelector of RECONCILE_SELECTORS) {
          let items: KubeObject[];
          try {
            items = (await this.client.list<KubeObject>(r, ns, { labelSelector })).items;
          } catch (e) {
            report.errors.push(`error: pruning ${objectRef(r, '')}: ${(e as Error).message}`);
            continue;
          }
          for (const obj of items) {
            const name = obj.metadata.name ?? '';
            const key = identity(r, obj.metadata.namespace, name);
            if (seen.has(key) || keep.has(key) || obj.metadata.deletionTimestamp) continue;
            seen.add(key);
            if (!obj.metadata.managedFields?.some((f) => f.manager === this.fieldManager && f.operation === 'Apply')) continue;
            try {
              await this.client.delete(r, obj.metadata.namespace, name, { propagationPolicy: 'Background' });
            } catch (e) {
              if (e instanceof StatusError && e.reason === 'NotFound') continue;
              report.errors.push(`error: pruning ${objectRef(r, name)}: ${(e as Error).message}`);
              continue;
            }
            report.pruned.push(objectRef(r, name));
            this.logger.info(`${objectRef(r, name)} pruned`);
          }
        }
      }
    }
  }
}

function reasonOf(e: unknown): string {
  return e instanceof StatusError ? e.reason : 'InternalError';
}
