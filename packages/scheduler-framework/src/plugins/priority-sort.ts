// QueueSort: higher priority first, then earlier queue timestamp.
import type { QueueSortPlugin, QueuedPodInfo } from '../framework/interface.ts';
import { Names } from './names.ts';

export class PrioritySort implements QueueSortPlugin {
  readonly name = Names.PrioritySort;
  less(a: QueuedPodInfo, b: QueuedPodInfo): boolean {
    const pa = a.podInfo.priority;
    const pb = b.podInfo.priority;
    return pa > pb || (pa === pb && a.timestamp < b.timestamp);
  }
}
