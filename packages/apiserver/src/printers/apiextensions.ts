// kubectl get crd: Kubernetes serves CustomResourceDefinitions with the default table (NAME, CREATED AT).
import { formatTime } from '@kemu/api';
import type { TablePrinter } from '../strategy/types.ts';
import { col, nameCol } from './util.ts';

export const customResourceDefinitionPrinter: TablePrinter = {
  columns: [nameCol, col('Created At', 'date')],
  cells: (crd) => [crd.metadata.name ?? '', crd.metadata.creationTimestamp ?? formatTime(0)],
};
