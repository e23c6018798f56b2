// kubectl get mutatingwebhookconfigurations / validatingwebhookconfigurations: NAME, WEBHOOKS, AGE.
import type { TablePrinter } from '../strategy/types.ts';
import { since } from './duration.ts';
import { ageCol, col, list } from './util.ts';
import { nameCol } from './util.ts';

export const webhookConfigurationPrinter: TablePrinter = {
  columns: [nameCol, col('Webhooks', 'integer'), ageCol],
  cells: (o, now) => [o.metadata.name ?? '', list(o.webhooks).length, since(o.metadata.creationTimestamp, now)],
};
