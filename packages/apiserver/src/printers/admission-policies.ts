// kubectl get validatingadmissionpolicies, validatingadmissionpolicybindings (printers.go).
import { formatLabelSelector, type LabelSelector } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, list, nameCol, obj, str } from './util.ts';

export const validatingAdmissionPolicyPrinter: TablePrinter = {
  columns: [nameCol, col('Validations', 'integer'), col('ParamKind'), ageCol],
  cells(p, now) {
    const spec = obj(p.spec);
    const pk = spec.paramKind === undefined ? undefined : obj(spec.paramKind);
    return [p.metadata.name ?? '', list(spec.validations).length, pk ? `${str(pk.apiVersion)}/${str(pk.kind)}` : '<unset>', since(p.metadata.creationTimestamp, now)];
  },
};

export const validatingAdmissionPolicyBindingPrinter: TablePrinter = {
  columns: [nameCol, col('PolicyName'), col('ParamRef'), ageCol],
  cells(b, now) {
    const spec = obj(b.spec);
    let param = '<unset>';
    if (spec.paramRef !== undefined) {
      const pr = obj(spec.paramRef);
      // Kubernetes cannot tell a cluster-scoped param from here, so a name without namespace gets "*/".
      if (str(pr.name)) param = str(pr.namespace) ? `${str(pr.namespace)}/${str(pr.name)}` : `*/${str(pr.name)}`;
      else if (pr.selector !== undefined) param = formatLabelSelector(obj(pr.selector) as LabelSelector);
    }
    return [b.metadata.name ?? '', str(spec.policyName), param, since(b.metadata.creationTimestamp, now)];
  },
};
