// The review kinds (access, rules, self and subject access reviews): answered by the server on create, never
// stored, so their strategies carry no defaults or validation of their own (routes/reviews.ts checks them).
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';

export const selfSubjectAccessReviewStrategy = buildStrategy(R.selfsubjectaccessreviews, {});
export const selfSubjectRulesReviewStrategy = buildStrategy(R.selfsubjectrulesreviews, {});
export const selfSubjectReviewStrategy = buildStrategy(R.selfsubjectreviews, {});
export const subjectAccessReviewStrategy = buildStrategy(R.subjectaccessreviews, {});
export const localSubjectAccessReviewStrategy = buildStrategy(R.localsubjectaccessreviews, {});
