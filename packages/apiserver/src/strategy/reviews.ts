// selfsubjectaccessreviews, selfsubjectrulesreviews, selfsubjectreviews and tokenreviews: answered by the server on create, never stored.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';

export const selfSubjectAccessReviewStrategy = buildStrategy(R.selfsubjectaccessreviews, {});
export const selfSubjectRulesReviewStrategy = buildStrategy(R.selfsubjectrulesreviews, {});
export const selfSubjectReviewStrategy = buildStrategy(R.selfsubjectreviews, {});
export const tokenReviewStrategy = buildStrategy(R.tokenreviews, {});
