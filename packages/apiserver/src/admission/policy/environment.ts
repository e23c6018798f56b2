// The CEL variables of ValidatingAdmissionPolicy expressions, as Kubernetes declares them: matchConditions
// see no `variables`; everything else does. All inputs are dynamically typed JSON (type checking against
// the matched kinds' schemas is type-check.ts's job, reported in status, never blocking).
import { compile, type CompileResult } from '../../cel/index.ts';

const BASE = { object: 'dyn', oldObject: 'dyn', request: 'dyn', params: 'dyn', namespaceObject: 'dyn', authorizer: 'dyn' } as const;

export const POLICY_VARIABLES = { ...BASE, variables: 'map' } as const;
export const MATCH_CONDITION_VARIABLES = BASE;

export const compilePolicyExpression = (expr: string): CompileResult => compile(expr, { variables: POLICY_VARIABLES });
export const compileMatchCondition = (expr: string): CompileResult => compile(expr, { variables: MATCH_CONDITION_VARIABLES });
