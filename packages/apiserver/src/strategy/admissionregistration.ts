// Strategies of mutatingwebhookconfigurations and validatingwebhookconfigurations
// (pkg/registry/admissionregistration): defaults, validation, generation bumped when the webhooks change.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultWebhookConfiguration } from '../defaults/admissionregistration.ts';
import {
  validateMutatingWebhookConfiguration,
  validateMutatingWebhookConfigurationUpdate,
  validateValidatingWebhookConfiguration,
  validateValidatingWebhookConfigurationUpdate,
} from '../validation/admissionregistration.ts';

export const mutatingWebhookConfigurationStrategy = buildStrategy(R.mutatingwebhookconfigurations, {
  defaults: (o) => defaultWebhookConfiguration(o, true),
  validate: validateMutatingWebhookConfiguration,
  validateUpdate: validateMutatingWebhookConfigurationUpdate,
  generation: true,
});

export const validatingWebhookConfigurationStrategy = buildStrategy(R.validatingwebhookconfigurations, {
  defaults: (o) => defaultWebhookConfiguration(o, false),
  validate: validateValidatingWebhookConfiguration,
  validateUpdate: validateValidatingWebhookConfigurationUpdate,
  generation: true,
});
