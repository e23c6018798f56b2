// The review kinds (access, rules, self, subject access and token reviews): answered by the server on create,
// never stored, so their strategies carry no defaults or validation of their own (the routes check them).
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';

export const selfSubjectAccessReviewStrategy = buildStrategy(R.selfsubjectaccessreviews, {});
export const selfSubjectRulesReviewStrategy = buildStrategy(R.selfsubjectrulesreviews, {});
export const selfSubjectReviewStrategy = buildStrategy(R.selfsubjectreviews, {});
export const subjectAccessReviewStrategy = buildStrategy(R.subjectaccessreviews, {});
export const localSubjectAccessReviewStrategy = buildStrategy(R.localsubjectaccessreviews, {});
export const tokenReviewStrategy = buildStrategy(R.tokenreviews, {});
