import { describe, expect, it } from 'vitest';
import { R, StatusError } from '@kemu/api';
import type { KubeObject, PriorityClass } from '@kemu/api';
import { admit, admitWith } from './index.ts';
import type { AdmissionAttributes } from './index.ts';

const pod = (spec: Record<string, unknown> = {}): KubeObject => ({
  metadata: { name: 'p', namespace: 'default' },
  spec: { containers: [{ name: 'c', image: 'x' }], ...spec },
});

const create = (obj: KubeObject, resource = R.pods): AdmissionAttributes => ({
  operation: 'CREATE',
  resource,
  namespace: 'default',
  name: obj.metadata.name ?? '',
  object: obj,
  dryRun: false,
});

const spec = (o: KubeObject): Record<string, unknown> => o.spec as Record<string, unknown>;

const classes: PriorityClass[] = [
  { metadata: { name: 'high' }, value: 1000, preemptionPolicy: 'Never' },
  { metadata: { name: 'low' }, value: 10, globalDefault: true },
];
const withClasses = admitWith({
  getPriorityClass: async (n) => classes.find((c) => c.metadata.name === n),
  listPriorityClasses: async () => classes,
});

describe('admission', () => {
  it('defaults serviceAccountName, priority 0 and the two NoExecute tolerations', async () => {
    const p = pod({ tolerations: [{ key: 'a', operator: 'Exists' }] });
    await admit(create(p));
    expect(spec(p)).toMatchObject({
      serviceAccountName: 'default',
      serviceAccount: 'default',
      priority: 0,
      preemptionPolicy: 'PreemptLowerPriority',
      tolerations: [
        { key: 'a', operator: 'Exists' },
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ],
    });
  });

  it('takes the toleration seconds from --default-not-ready/unreachable-toleration-seconds', async () => {
    const p = pod();
    await admitWith({ defaultNotReadyTolerationSeconds: 20, defaultUnreachableTolerationSeconds: 10 })(create(p));
    expect(spec(p).tolerations).toEqual([
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 20 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
    ]);
  });

  it('keeps existing not-ready/unreachable tolerations and service accounts', async () => {
    const p = pod({
      serviceAccountName: 'builder',
      tolerations: [
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 5 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists' },
      ],
    });
    await admit(create(p));
    expect(spec(p).serviceAccountName).toBe('builder');
    expect((spec(p).tolerations as unknown[]).length).toBe(2);
  });

  it.each<[string, Record<string, unknown>, Record<string, unknown>]>([
    ['named class', { priorityClassName: 'high' }, { priority: 1000, preemptionPolicy: 'Never', priorityClassName: 'high' }],
    ['global default', {}, { priority: 10, preemptionPolicy: 'PreemptLowerPriority', priorityClassName: 'low' }],
    ['built-in node critical', { priorityClassName: 'system-node-critical' }, { priority: 2000001000 }],
    ['built-in cluster critical', { priorityClassName: 'system-cluster-critical' }, { priority: 2000000000 }],
  ])('priority: %s', async (_n, s, want) => {
    const p = pod(s);
    await withClasses(create(p));
    expect(spec(p)).toMatchObject(want);
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['unknown class', { priorityClassName: 'nope' }, 'pods "p" is forbidden: no PriorityClass with name nope was found'],
    [
      'mismatched priority',
      { priorityClassName: 'high', priority: 5 },
      'pods "p" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
    ],
  ])('priority rejects %s with 403', async (_n, s, msg) => {
    const err = await withClasses(create(pod(s))).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).code).toBe(403);
    expect((err as StatusError).message).toBe(msg);
  });

  it('without a lookup, user classes are left unresolved instead of refused', async () => {
    const p = pod({ priorityClassName: 'high' });
    await admit(create(p));
    expect(spec(p).priority).toBeUndefined();
  });

  it('allows only one global default PriorityClass', async () => {
    const pc: KubeObject = { metadata: { name: 'another' }, value: 5, globalDefault: true };
    await expect(withClasses(create(pc, R.priorityclasses))).rejects.toThrow(
      'priorityclasses.scheduling.k8s.io "another" is forbidden: PriorityClass low is already marked as default. Only one default can exist',
    );
  });

  it('ignores updates, subresources and other kinds', async () => {
    const p = pod();
    await admit({ ...create(p), operation: 'UPDATE' });
    await admit({ ...create(p), subresource: 'status' });
    expect(spec(p).serviceAccountName).toBeUndefined();
    const cm: KubeObject = { metadata: { name: 'c' } };
    await admit(create(cm, R.configmaps));
    expect(cm).toEqual({ metadata: { name: 'c' } });
  });
});
