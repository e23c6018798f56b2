// JSON patch (RFC 6902) through fast-json-patch. As the real apiserver: a body that is not a list of
// operations is 400 BadRequest; an operation that cannot apply (missing path, failed test) is 422.
import fjp from 'fast-json-patch';
import type { Operation } from 'fast-json-patch';
import { errors, StatusError } from '@kemu/api';

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

function decode(patch: unknown): Operation[] {
  if (!Array.isArray(patch)) throw errors.badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  patch.forEach((op: unknown, i) => {
    if (typeof op !== 'object' || op === null || Array.isArray(op))
      throw errors.badRequest(`json: cannot unmarshal ${typeof op} into Go value of type jsonpatch.Operation (operation ${i})`);
    const o = op as Record<string, unknown>;
    if (typeof o.op !== 'string' || !OPS.has(o.op)) throw errors.badRequest(`Unexpected kind: ${String(o.op)}`);
    if (typeof o.path !== 'string') throw errors.badRequest(`operation ${i} (${o.op}) is missing path`);
    if ((o.op === 'move' || o.op === 'copy') && typeof o.from !== 'string') throw errors.badRequest(`operation ${i} (${o.op}) is missing from`);
    if ((o.op === 'add' || o.op === 'replace' || o.op === 'test') && !('value' in o))
      throw errors.badRequest(`operation ${i} (${o.op}) is missing value`);
  });
  return patch as Operation[];
}

function describe(op: Operation, e: unknown): string {
  const name = (e as { name?: unknown }).name;
  if (name === 'TEST_OPERATION_FAILED') return `testing value ${op.path} failed: test failed`;
  if (op.op === 'remove' || op.op === 'replace') return `jsonpatch ${op.op} operation does not apply: doc is missing key: ${op.path}: missing value`;
  if (op.op === 'move' || op.op === 'copy') return `jsonpatch ${op.op} operation does not apply: doc is missing from path: ${op.from}: missing value`;
  return `jsonpatch add operation does not apply: doc is missing path: "${op.path}": missing value`;
}

export function jsonPatch(doc: unknown, patch: unknown): unknown {
  const ops = decode(patch);
  let cur: unknown = structuredClone(doc);
  for (const op of ops) {
    try {
      cur = fjp.applyOperation(cur, op, true, true, true).newDocument;
    } catch (e) {
      throw new StatusError('Invalid', describe(op, e));
    }
  }
  return cur;
}
