// cronjobs (pkg/registry/batch/cronjob/strategy.go): defaults, status cleared on create, generation,
// /status keeps spec and labels.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultCronJob } from '../defaults/batch.ts';
import { validateCronJob, validateCronJobUpdate } from '../validation/batch.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';

export const cronJobStrategy = buildStrategy(R.cronjobs, {
  defaults: (cj) => defaultCronJob(cj),
  validate: validateCronJob,
  validateUpdate: validateCronJobUpdate,
  validateStatusUpdate: (cj, old) => validateObjectMetaUpdate(cj.metadata, old.metadata, { namespaced: true }),
  status: { initial: () => ({}) },
  generation: true,
  statusKeepsMeta: ['labels'],
});
