// Bind: POST pods/<name>/binding. Errors come back as a Status carrying the StatusError, so the scheduler
// can tell a 409 (someone else bound the pod) from a failure worth retrying.
import type { CycleState } from '../framework/cycle-state.ts';
import type { BindPlugin, Handle } from '../framework/interface.ts';
import type { PodInfo } from '../framework/pod-info.ts';
import { Status, type MaybeStatus } from '../framework/status.ts';
import { Names } from './names.ts';

export class DefaultBinder implements BindPlugin {
  readonly name = Names.DefaultBinder;
  constructor(private readonly handle: Pick<Handle, 'client'>) {}

  async bind(_s: CycleState, pod: PodInfo, nodeName: string): Promise<MaybeStatus> {
    const client = this.handle.client;
    if (!client) return Status.error(new Error('no API client configured'));
    try {
      await client.bind(pod.namespace, pod.name, pod.uid, nodeName);
      return null;
    } catch (e) {
      return Status.error(e);
    }
  }
}
