// replicasets (pkg/registry/apps/replicaset/strategy.go): as deployments: generation, status reset,
// immutable selector, /status keeps spec and labels.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultReplicaSet } from '../defaults/apps.ts';
import { validateReplicaSet, validateReplicaSetUpdate, validateReplicaStatus } from '../validation/apps.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';

export const replicaSetStrategy = buildStrategy(R.replicasets, {
  defaults: (rs) => defaultReplicaSet(rs),
  validate: validateReplicaSet,
  validateUpdate: validateReplicaSetUpdate,
  validateStatusUpdate: (rs, old) => [...validateObjectMetaUpdate(rs.metadata, old.metadata, { namespaced: true }), ...validateReplicaStatus(rs)],
  status: { initial: () => ({ replicas: 0 }) },
  generation: true,
  statusKeepsMeta: ['labels'],
});
