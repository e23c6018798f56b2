// horizontal-pod-autoscaler-controller (pkg/controller/podautoscaler/horizontal.go): every
// --horizontal-pod-autoscaler-sync-period each HorizontalPodAutoscaler is reconciled — the target's scale
// subresource read, each metric turned into a replica proposal (the largest wins), the proposal stabilized and
// limited (normalize.ts), the scale written when it changes, and status (currentReplicas, desiredReplicas,
// currentMetrics, lastScaleTime, the AbleToScale / ScalingActive / ScalingLimited conditions) and Events
// (SuccessfulRescale, FailedGetScale, FailedGetResourceMetric, FailedComputeMetricsReplicas…) as Kubernetes
// writes them. As in Kubernetes, adds and updates only schedule the next sync a period away (so a new
// autoscaler is first read after one period) and failures do not back off.
import { R, formatTime, type Condition, type HorizontalPodAutoscaler, type KubeObject, type MetricSpec, type MetricStatus, type MetricTarget, type MetricValueStatus, type Pod, type Scale } from '@kemu/api';
import { milliValue } from '@kemu/api';
import { metaKey, type SharedInformer } from '@kemu/client';
import { parseLabelSelector, type LabelSelectorMatcher } from '@kemu/api';
import type { Controller, ControllerContext, ControllerDescriptor } from '../../controller.ts';
import { KeyedWorker } from '../base.ts';
import { NO_CUSTOM_METRICS_API, NO_EXTERNAL_METRICS_API, RestMetricsClient, RestScaleClient, type MetricsClient, type ScaleClient } from './clients.ts';
import { Normalizer } from './normalize.ts';
import { rawResourceReplicas, resourceReplicas, type CalculatorOptions } from './replica-calculator.ts';

type HPA = HorizontalPodAutoscaler;
type Status = NonNullable<HPA['status']>;
type CondType = 'AbleToScale' | 'ScalingActive' | 'ScalingLimited';

/** A metric that could not be read: the ScalingActive condition it sets and the error it reports. */
class MetricError extends Error {
  constructor(
    message: string,
    readonly reason: string,
    readonly inner: string = message,
  ) {
    super(message);
  }
}

interface Proposal {
  replicas: number;
  metricName: string;
  status: MetricStatus;
}

export interface HorizontalControllerDeps {
  metrics?: MetricsClient;
  scales?: ScaleClient;
}

/** 500m, 1, 1500m: resource.NewMilliQuantity(v, DecimalSI) printed canonically. */
export function milliQuantity(v: number): string {
  return v % 1000 === 0 ? String(v / 1000) : `${v}m`;
}

export class HorizontalController implements Controller {
  readonly name = 'horizontal-pod-autoscaler-controller';
  private readonly hpas: SharedInformer<HPA>;
  private readonly pods: SharedInformer<Pod>;
  private readonly worker: KeyedWorker;
  private readonly normalizer: Normalizer;
  private readonly metrics: MetricsClient;
  private readonly scales: ScaleClient;
  private readonly syncPeriod: number;
  /** Each autoscaler's pod selector as last read from its target's scale (hpaSelectors): to find overlaps. */
  private readonly selectors = new Map<string, LabelSelectorMatcher>();

  constructor(
    private readonly ctx: ControllerContext,
    deps: HorizontalControllerDeps = {},
  ) {
    const o = ctx.options;
    this.syncPeriod = o['horizontal-pod-autoscaler-sync-period'];
    this.normalizer = new Normalizer(o['horizontal-pod-autoscaler-downscale-stabilization']);
    this.metrics = deps.metrics ?? new RestMetricsClient(ctx.client);
    this.scales = deps.scales ?? new RestScaleClient(ctx.client);
    this.hpas = ctx.informers.informerFor<HPA>(R.horizontalpodautoscalers);
    this.pods = ctx.informers.informerFor<Pod>(R.pods);
    this.worker = new KeyedWorker(ctx, { name: 'horizontalpodautoscaler', workers: o['concurrent-horizontal-pod-autoscaler-syncs'], sync: (k) => this.sync(k) }).waitFor(this.hpas, this.pods);
    const later = (obj: KubeObject | Parameters<typeof metaKey>[0]) => this.worker.addAfter(metaKey(obj), this.syncPeriod);
    this.hpas.addEventHandler({ onAdd: later, onUpdate: (_o, n) => later(n), onDelete: later });
  }

  async run(): Promise<void> {
    await this.worker.run();
  }

  /** reconcileKey: a gone autoscaler is forgotten; any other is reconciled and comes back a period later. */
  async sync(key: string): Promise<void> {
    const shared = this.hpas.store.get(key);
    if (!shared) {
      this.normalizer.forget(key);
      this.selectors.delete(key);
      return;
    }
    try {
      await this.reconcile(structuredClone(shared), key);
    } catch (e) {
      this.ctx.logger.warn({ hpa: key, err: String(e) }, 'horizontal pod autoscaler sync failed');
    }
    this.worker.addAfter(key, this.syncPeriod);
  }

  private event(hpa: HPA, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.ctx.recorder.event({ ...hpa, apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler' }, type, reason, message);
  }

  /** setCondition: lastTransitionTime moves only when the status does. */
  private setCondition(hpa: HPA, type: CondType, status: 'True' | 'False', reason: string, message: string): void {
    const st = this.status(hpa);
    const list = (st.conditions ??= []);
    let c = list.find((x) => x.type === type);
    if (!c) {
      c = { type, status } as Condition;
      list.push(c);
      c.lastTransitionTime = formatTime(this.ctx.clock.now());
    } else if (c.status !== status) c.lastTransitionTime = formatTime(this.ctx.clock.now());
    c.status = status;
    c.reason = reason;
    c.message = message;
  }

  private status(hpa: HPA): Status {
    return (hpa.status ??= { desiredReplicas: 0 });
  }

  /** setStatus: the current and desired counts, the metrics read, lastScaleTime on a rescale; conditions kept. */
  private setStatus(hpa: HPA, current: number, desired: number, metrics: MetricStatus[], rescale: boolean): void {
    const old = this.status(hpa);
    const next: Status = { desiredReplicas: desired };
    if (current !== 0) next.currentReplicas = current;
    if (metrics.length > 0) next.currentMetrics = metrics;
    if (rescale) next.lastScaleTime = formatTime(this.ctx.clock.now());
    else if (old.lastScaleTime) next.lastScaleTime = old.lastScaleTime;
    if (old.conditions) next.conditions = old.conditions;
    hpa.status = next;
  }

  /** updateStatusIfNeeded: a PUT of /status only when it changed. */
  private async updateStatusIfNeeded(original: Status | undefined, hpa: HPA): Promise<void> {
    if (JSON.stringify(original ?? {}) === JSON.stringify(hpa.status ?? {})) return;
    try {
      await this.ctx.client.updateStatus<HPA>(R.horizontalpodautoscalers, hpa.metadata.namespace, hpa);
    } catch (e) {
      this.event(hpa, 'Warning', 'FailedUpdateStatus', (e as Error).message);
      throw new Error(`failed to update status for ${hpa.metadata.name ?? ''}: ${(e as Error).message}`);
    }
  }

  private async reconcile(hpa: HPA, key: string): Promise<void> {
    const original = structuredClone(hpa.status);
    const ns = hpa.metadata.namespace ?? '';
    const ref = hpa.spec.scaleTargetRef;
    const reference = `${ref.kind}/${ns}/${ref.name}`;
    let scale: Scale;
    try {
      scale = await this.scales.get(ref, ns);
    } catch (e) {
      const msg = (e as Error).message;
      this.event(hpa, 'Warning', 'FailedGetScale', msg);
      this.setCondition(hpa, 'AbleToScale', 'False', 'FailedGetScale', `the HPA controller was unable to get the target's current scale: ${msg}`);
      await this.updateStatusIfNeeded(original, hpa);
      throw new Error(`failed to query scale subresource for ${reference}: ${msg}`);
    }
    this.setCondition(hpa, 'AbleToScale', 'True', 'SucceededGetScale', "the HPA controller was able to get the target's current scale");
    const now = this.ctx.clock.now();
    const current = scale.spec?.replicas ?? 0;
    this.normalizer.recordInitial(key, current, now);
    const minReplicas = hpa.spec.minReplicas ?? 1;
    let desired = 0;
    let rescaleReason = '';
    let rescale = true;
    let statuses: MetricStatus[] = [];

    if (current === 0 && minReplicas !== 0) {
      desired = 0;
      rescale = false;
      this.setCondition(hpa, 'ScalingActive', 'False', 'ScalingDisabled', 'scaling is disabled since the replica count of the target is zero');
    } else if (current > hpa.spec.maxReplicas) {
      rescaleReason = 'Current number of replicas above Spec.MaxReplicas';
      desired = hpa.spec.maxReplicas;
    } else if (current < minReplicas) {
      rescaleReason = 'Current number of replicas below Spec.MinReplicas';
      desired = minReplicas;
    } else {
      const computed = await this.computeReplicasForMetrics(hpa, scale, hpa.spec.metrics ?? []);
      statuses = computed.statuses;
      if (computed.replicas === -1) {
        this.setStatus(hpa, current, this.status(hpa).desiredReplicas, statuses, false);
        await this.updateStatusIfNeeded(original, hpa);
        this.event(hpa, 'Warning', 'FailedComputeMetricsReplicas', computed.error ?? '');
        throw new Error(`failed to compute desired number of replicas based on listed metrics for ${reference}: ${computed.error ?? ''}`);
      }
      let rescaleMetric = '';
      if (computed.replicas > desired) {
        desired = computed.replicas;
        rescaleMetric = computed.metricName;
      }
      if (desired > current) rescaleReason = `${rescaleMetric} above target`;
      if (desired < current) rescaleReason = 'All metrics below target';
      const n = this.normalizer.normalize({ key, current, desired, min: minReplicas, max: hpa.spec.maxReplicas, behavior: hpa.spec.behavior, now });
      this.setCondition(hpa, 'AbleToScale', 'True', n.ableToScale.reason, n.ableToScale.message);
      this.setCondition(hpa, 'ScalingLimited', n.limited.status, n.limited.reason, n.limited.message);
      desired = n.replicas;
      rescale = desired !== current;
    }

    if (rescale) {
      try {
        await this.scales.update(ref, ns, { ...scale, spec: { ...scale.spec, replicas: desired } });
      } catch (e) {
        const msg = (e as Error).message;
        this.event(hpa, 'Warning', 'FailedRescale', `New size: ${desired}; reason: ${rescaleReason}; error: ${msg}`);
        this.setCondition(hpa, 'AbleToScale', 'False', 'FailedUpdateScale', `the HPA controller was unable to update the target scale: ${msg}`);
        this.setStatus(hpa, current, this.status(hpa).desiredReplicas, statuses, false);
        await this.updateStatusIfNeeded(original, hpa);
        throw new Error(`failed to rescale ${reference}: ${msg}`);
      }
      this.setCondition(hpa, 'AbleToScale', 'True', 'SucceededRescale', `the HPA controller was able to update the target scale to ${desired}`);
      this.event(hpa, 'Normal', 'SuccessfulRescale', `New size: ${desired}; reason: ${rescaleReason}`);
      this.normalizer.recordScale(key, hpa.spec.behavior, current, desired, now);
      this.ctx.logger.info({ hpa: key, currentReplicas: current, desiredReplicas: desired, reason: rescaleReason }, 'Successfully rescaled');
    } else desired = current;
    this.setStatus(hpa, current, desired, statuses, rescale);
    await this.updateStatusIfNeeded(original, hpa);
  }

  /** hpasControllingPodsUnderSelector: the autoscalers (ns/name) whose selector takes any of `pods`, sorted. */
  private autoscalersOf(ns: string, pods: Pod[]): string[] {
    const found = new Set<string>();
    for (const [key, sel] of this.selectors) {
      if (!key.startsWith(`${ns}/`)) continue;
      if (pods.some((p) => sel.matches(p.metadata.labels ?? {}))) found.add(key);
    }
    return [...found].sort();
  }

  /** computeReplicasForMetrics: the largest proposal; -1 when every metric failed, or some did and the rest would scale down. */
  private async computeReplicasForMetrics(hpa: HPA, scale: Scale, specs: MetricSpec[]): Promise<{ replicas: number; metricName: string; statuses: MetricStatus[]; error?: string }> {
    const selectorText = scale.status?.selector ?? '';
    if (selectorText === '') {
      this.event(hpa, 'Warning', 'SelectorRequired', 'selector is required');
      this.setCondition(hpa, 'ScalingActive', 'False', 'InvalidSelector', "the HPA target's scale is missing a selector");
      return { replicas: -1, metricName: '', statuses: [], error: 'selector is required' };
    }
    let selector: ReturnType<typeof parseLabelSelector>;
    try {
      selector = parseLabelSelector(selectorText);
    } catch (e) {
      const msg = `couldn't convert selector into a corresponding internal selector object: ${(e as Error).message}`;
      this.event(hpa, 'Warning', 'InvalidSelector', msg);
      this.setCondition(hpa, 'ScalingActive', 'False', 'InvalidSelector', msg);
      return { replicas: -1, metricName: '', statuses: [], error: msg };
    }
    const ns = hpa.metadata.namespace ?? '';
    this.selectors.set(metaKey(hpa), selector);
    const pods = this.pods.store.list().filter((p) => (p.metadata.namespace ?? '') === ns && selector.matches(p.metadata.labels ?? {}));
    const controlling = this.autoscalersOf(ns, pods);
    if (controlling.length > 1) {
      const msg = `pods by selector ${selectorText} are controlled by multiple HPAs: [${controlling.join(' ')}]`;
      this.event(hpa, 'Warning', 'AmbiguousSelector', msg);
      this.setCondition(hpa, 'ScalingActive', 'False', 'AmbiguousSelector', msg);
      return { replicas: -1, metricName: '', statuses: [], error: msg };
    }
    const specReplicas = scale.spec?.replicas ?? 0;
    // Go leaves a failed metric's entry at its zero value, which is what status shows.
    const statuses: MetricStatus[] = specs.map(() => ({ type: '' as MetricStatus['type'] }));
    let replicas = 0;
    let metricName = '';
    let invalid = 0;
    let first: MetricError | undefined;
    for (const [i, spec] of specs.entries()) {
      try {
        const p = await this.computeReplicasForMetric(hpa, spec, specReplicas, selectorText, pods);
        statuses[i] = p.status;
        if (replicas === 0 || p.replicas > replicas) {
          replicas = p.replicas;
          metricName = p.metricName;
        }
      } catch (e) {
        const err = e instanceof MetricError ? e : new MetricError((e as Error).message, 'FailedGetResourceMetric');
        if (invalid === 0) first = err;
        invalid++;
      }
    }
    const error = first ? `invalid metrics (${invalid} invalid out of ${specs.length}), first error is: ${first.message}` : undefined;
    if (first && (invalid >= specs.length || replicas < specReplicas)) {
      this.setCondition(hpa, 'ScalingActive', 'False', first.reason, `the HPA was unable to compute the replica count: ${first.inner}`);
      return { replicas: -1, metricName: '', statuses, ...(error ? { error } : {}) };
    }
    this.setCondition(hpa, 'ScalingActive', 'True', 'ValidMetricFound', `the HPA was able to successfully calculate a replica count from ${metricName}`);
    return { replicas, metricName, statuses };
  }

  private calculatorOptions(): CalculatorOptions {
    const o = this.ctx.options;
    return {
      tolerance: o['horizontal-pod-autoscaler-tolerance'],
      cpuInitializationPeriodMs: o['horizontal-pod-autoscaler-cpu-initialization-period'],
      delayOfInitialReadinessStatusMs: o['horizontal-pod-autoscaler-initial-readiness-delay'],
      now: this.ctx.clock.now(),
    };
  }

  /**
   * computeReplicasForMetric. A failure records its Warning event (the inner error) and throws a MetricError whose
   * message is the outer error and whose cause is the inner one (the ScalingActive message).
   */
  private async computeReplicasForMetric(hpa: HPA, spec: MetricSpec, specReplicas: number, selector: string, pods: Pod[]): Promise<Proposal> {
    const fail = (reason: string, inner: string, outer: string): never => {
      this.event(hpa, 'Warning', reason, inner);
      throw new MetricError(outer, reason, inner);
    };
    switch (spec.type) {
      case 'Resource':
      case 'ContainerResource': {
        const container = spec.type === 'ContainerResource';
        const src = container ? spec.containerResource : spec.resource;
        const name = src?.name ?? '';
        const reason = container ? 'FailedGetContainerResourceMetric' : 'FailedGetResourceMetric';
        try {
          const r = await this.resourceProposal(specReplicas, src?.target, name, container ? (spec.containerResource?.container ?? '') : '', hpa.metadata.namespace ?? '', selector, pods, container);
          const status: MetricStatus = container
            ? { type: 'ContainerResource', containerResource: { name, container: spec.containerResource?.container ?? '', current: r.current } }
            : { type: 'Resource', resource: { name, current: r.current } };
          return { replicas: r.replicas, metricName: r.metricName, status };
        } catch (e) {
          if (e instanceof MetricError) throw e;
          const inner = (e as Error).message;
          const outer = container ? `failed to get ${name} container metric value: ${inner}` : `failed to get ${name} resource metric value: ${inner}`;
          return fail(reason, inner, outer);
        }
      }
      case 'Pods': {
        const name = spec.pods?.metric.name ?? '';
        const inner = `unable to get metric ${name}: unable to fetch metrics from custom metrics API: ${NO_CUSTOM_METRICS_API}`;
        return fail('FailedGetPodsMetric', inner, `failed to get pods metric value: ${inner}`);
      }
      case 'Object': {
        const name = spec.object?.metric.name ?? '';
        const obj = spec.object?.describedObject;
        const inner = `unable to get metric ${name}: ${obj?.kind ?? ''} on ${hpa.metadata.namespace ?? ''} ${obj?.name ?? ''}/unable to fetch metrics from custom metrics API: ${NO_CUSTOM_METRICS_API}`;
        return fail('FailedGetObjectMetric', inner, `failed to get object metric value: ${inner}`);
      }
      case 'External': {
        const name = spec.external?.metric.name ?? '';
        const inner = `unable to get external metric ${hpa.metadata.namespace ?? ''}/${name}/nil: unable to fetch metrics from external metrics API: ${NO_EXTERNAL_METRICS_API}`;
        return fail('FailedGetExternalMetric', inner, `failed to get external metric value: ${inner}`);
      }
      default: {
        const inner = `unknown metric source type "${String((spec as { type?: unknown }).type ?? '')}"`;
        return fail('InvalidMetricSourceType', inner, inner);
      }
    }
  }

  /** computeStatusForResourceMetricGeneric. */
  private async resourceProposal(
    current: number,
    target: MetricTarget | undefined,
    resource: string,
    container: string,
    namespace: string,
    selector: string,
    pods: Pod[],
    isContainer: boolean,
  ): Promise<{ replicas: number; metricName: string; current: MetricValueStatus }> {
    const read = async () => {
      try {
        return await this.metrics.getResourceMetric(resource, namespace, selector, container);
      } catch (e) {
        throw new Error(`unable to get metrics for resource ${resource}: ${(e as Error).message}`);
      }
    };
    if (target?.averageValue !== undefined) {
      try {
        const m = await read();
        const p = rawResourceReplicas(current, milliValue(target.averageValue), resource, pods, m.metrics, this.calculatorOptions());
        return { replicas: p.replicas, metricName: `${resource} resource`, current: { averageValue: milliQuantity(p.rawAverage) } };
      } catch (e) {
        throw new Error(`failed to get ${resource} usage: ${(e as Error).message}`);
      }
    }
    if (target?.averageUtilization === undefined)
      throw new Error('invalid resource metric source: neither an average utilization target nor an average value (usage) target was set');
    const utilization = target.averageUtilization;
    try {
      const m = await read();
      const p = resourceReplicas(current, utilization, resource, container, pods, m.metrics, this.calculatorOptions());
      const metricName = isContainer ? `${resource} container resource utilization (percentage of request)` : `${resource} resource utilization (percentage of request)`;
      return { replicas: p.replicas, metricName, current: { averageUtilization: p.utilization ?? 0, averageValue: milliQuantity(p.rawAverage) } };
    } catch (e) {
      throw new Error(`failed to get ${resource} utilization: ${(e as Error).message}`);
    }
  }
}

export const horizontalPodAutoscalerDescriptor: ControllerDescriptor = {
  name: 'horizontal-pod-autoscaler-controller',
  aliases: ['horizontalpodautoscaling'],
  serviceAccountName: 'horizontal-pod-autoscaler',
  eventComponent: 'horizontal-pod-autoscaler',
  enabledByDefault: true,
  create: (ctx) => new HorizontalController(ctx),
};
