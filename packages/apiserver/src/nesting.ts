// How deep a request body may nest, measured without recursion. Kubernetes' JSON decoder refuses more than
// 10,000 levels; kemu refuses more than MAX_NESTING, because its own code, the YAML parser, structuredClone
// and JSON.stringify recurse on the JavaScript stack and overflow it somewhere between 850 and 5,000
// levels (a YAML parse that overflows inside V8's regexp compiler ends the whole process). A refusal comes
// before any of them runs.
import { errors, type StatusError } from '@kemu/api';
import { CST, Lexer } from 'yaml';

/** Kubernetes' decoder limit (encoding/json's maxNestingDepth, go-yaml's max depth). */
export const KUBERNETES_MAX_DEPTH = 10_000;
/** kemu's limit: far below where its recursive code overflows, far above any real object. */
export const MAX_NESTING = 500;

/**
 * The nesting depth of a decoded value, counted iteratively and given up past limit: the depth of the first
 * object or array found deeper than limit (undefined when there is none), with that container's opening
 * character as Go's decoder names it.
 */
export function depthBeyond(value: unknown, limit: number): { depth: number; char: '{' | '[' } | undefined {
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (depth > limit) return { depth, char: Array.isArray(v) ? '[' : '{' };
    for (const x of Array.isArray(v) ? v : Object.values(v)) if (x !== null && typeof x === 'object') stack.push([x, depth + 1]);
  }
  return undefined;
}

/** The 400 for a JSON body (or patch) nested too deep: Kubernetes' words past its limit, kemu's below it. */
export function jsonTooDeep(value: unknown): StatusError | undefined {
  const over = depthBeyond(value, MAX_NESTING);
  if (!over) return undefined;
  if (depthBeyond(value, KUBERNETES_MAX_DEPTH)) {
    return errors.badRequest(`couldn't get version/kind; json parse error: invalid character '${over.char}' exceeded max depth`);
  }
  return kemuTooDeep('the request body');
}

/** The 400 for an object nested deeper than kemu handles (a body, or the result of a patch). */
export function kemuTooDeep(what: string): StatusError {
  return errors.badRequest(`${what} is nested more than ${MAX_NESTING} levels deep: kemu refuses deeper objects (Kubernetes decodes up to ${KUBERNETES_MAX_DEPTH})`);
}

/**
 * An upper bound of a YAML document's nesting, from its tokens alone (the lexer does not recurse, unlike
 * the parser and composer): on each line, the indentation plus the block indicators ("-", "?", ":") that
 * open a level on it, plus the open flow collections. Every block level takes a column of indentation or
 * an indicator, so the bound is never below the real depth; scalar text (block scalars included) is skipped.
 */
export function yamlNestingBound(text: string): number {
  let flow = 0;
  let indent = 0;
  let indicators = 0;
  let lineStart = true;
  let scalarNext = false;
  let max = 0;
  for (const token of new Lexer().lex(text)) {
    if (scalarNext) {
      // The source of a scalar, whatever characters it holds.
      scalarNext = false;
      lineStart = false;
      continue;
    }
    switch (CST.tokenType(token)) {
      case 'scalar':
        scalarNext = true;
        continue;
      case 'newline':
        lineStart = true;
        indent = 0;
        indicators = 0;
        continue;
      case 'space':
        if (lineStart) indent = token.length;
        continue;
      case 'flow-map-start':
      case 'flow-seq-start':
        flow++;
        break;
      case 'flow-map-end':
      case 'flow-seq-end':
        flow = Math.max(0, flow - 1);
        break;
      case 'seq-item-ind':
      case 'explicit-key-ind':
      case 'map-value-ind':
        if (flow === 0) indicators++;
        break;
      default:
        break;
    }
    lineStart = false;
    max = Math.max(max, indent + indicators + flow + 1);
  }
  return max;
}
