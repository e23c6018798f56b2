// kubectl get rolebindings / clusterrolebindings (printRoleBinding, printClusterRoleBinding): Role is
// Kind/name; the wide columns list the subjects by kind, service accounts as namespace/name. Roles and
// ClusterRoles have no printer in Kubernetes: they get the default Name / Created At table.
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, list, nameCol, obj, str } from './util.ts';

const columns = (what: string, roleRefDoc: string): TablePrinter['columns'] => [
  nameCol,
  { ...col('Role'), description: roleRefDoc },
  ageCol,
  { ...col('Users', 'string', 1), description: `Users in the ${what}` },
  { ...col('Groups', 'string', 1), description: `Groups in the ${what}` },
  { ...col('ServiceAccounts', 'string', 1), description: `ServiceAccounts in the ${what}` },
];

function bindingPrinter(roleRefDoc: string): TablePrinter {
  return {
    columns: columns('roleBinding', roleRefDoc),
    cells(b, now) {
      const ref = obj(b.roleRef);
      const users: string[] = [];
      const groups: string[] = [];
      const sas: string[] = [];
      for (const s of list(b.subjects)) {
        if (s.kind === 'ServiceAccount') sas.push(`${str(s.namespace)}/${str(s.name)}`);
        else if (s.kind === 'User') users.push(str(s.name));
        else if (s.kind === 'Group') groups.push(str(s.name));
      }
      return [
        b.metadata.name ?? '',
        `${str(ref.kind)}/${str(ref.name)}`,
        since(b.metadata.creationTimestamp, now),
        users.join(', '),
        groups.join(', '),
        sas.join(', '),
      ];
    },
  };
}

export const roleBindingPrinter = bindingPrinter(
  'roleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
);
export const clusterRoleBindingPrinter = bindingPrinter(
  'roleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
);
