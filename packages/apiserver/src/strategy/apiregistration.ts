// apiservices (k8s.io/kube-aggregator pkg/registry/apiservice): service port defaulted to 443, status kept
// on update and written through /status (by the availability controller, aggregator/availability.ts).
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultAPIService, validateAPIService, validateAPIServiceStatusUpdate, validateAPIServiceUpdate } from '../validation/apiregistration.ts';

export const apiServiceStrategy = buildStrategy(R.apiservices, {
  defaults: defaultAPIService,
  validate: validateAPIService,
  validateUpdate: validateAPIServiceUpdate,
  validateStatusUpdate: validateAPIServiceStatusUpdate,
  status: { initial: () => ({}) },
});
