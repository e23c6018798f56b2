// deployments (pkg/registry/apps/deployment/strategy.go): generation 1 on create and +1 per spec change,
// status cleared on create and kept on update, selector immutable, /status keeps spec and labels.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultDeployment } from '../defaults/apps.ts';
import { validateDeployment, validateDeploymentUpdate, validateReplicaStatus } from '../validation/apps.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';

export const deploymentStrategy = buildStrategy(R.deployments, {
  defaults: (d) => defaultDeployment(d),
  validate: validateDeployment,
  validateUpdate: validateDeploymentUpdate,
  validateStatusUpdate: (d, old) => [...validateObjectMetaUpdate(d.metadata, old.metadata, { namespaced: true }), ...validateReplicaStatus(d)],
  status: { initial: () => ({}) },
  generation: true,
  statusKeepsMeta: ['labels'],
});
