// nodes (pkg/registry/core/node/strategy.go): a kubelet registers with its status, so status is kept on
// create; updates keep the old status; podCIDR and providerID are set once.
import { R } from '@kemu/api';
import { buildStrategy } from './common.ts';
import { defaultNode } from '../defaults/core.ts';
import { validateNode, validateNodeUpdate } from '../validation/misc.ts';
import { validateObjectMetaUpdate } from '../validation/meta.ts';

export const nodeStrategy = buildStrategy(R.nodes, {
  defaults: (n) => defaultNode(n),
  validate: validateNode,
  validateUpdate: validateNodeUpdate,
  validateStatusUpdate: (n, old) => validateObjectMetaUpdate(n.metadata, old.metadata, { namespaced: false }),
  status: { keepOnCreate: true },
});
