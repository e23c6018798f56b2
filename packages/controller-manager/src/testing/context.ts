// Builds a ControllerContext over FakeApi + FakeInformerFactory for unit tests.
import type { KubeObject } from '@kemu/api';
import { FakeClock, silentLogger } from '@kemu/base';
import type { RestClient, SharedInformerFactory, EventRecorder } from '@kemu/client';
import type { ControllerContext } from '../controller.ts';
import { parseOptions } from '../options.ts';
import { FakeApi } from './fakeapi.ts';
import { FakeInformerFactory } from './fakeinformers.ts';

export interface RecordedEvent {
  object: string;
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export class FakeRecorder {
  readonly events: RecordedEvent[] = [];
  event(obj: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string): void {
    this.events.push({ object: `${obj.kind ?? ''}/${obj.metadata.name ?? ''}`, type, reason, message });
  }
  async flush(): Promise<void> {}
}

export interface FakeEnv {
  ctx: ControllerContext;
  api: FakeApi;
  informers: FakeInformerFactory;
  recorder: FakeRecorder;
  clock: FakeClock;
  abort: AbortController;
}

export function fakeContext(argv: string[] = []): FakeEnv {
  const clock = new FakeClock();
  const api = new FakeApi(clock);
  const informers = new FakeInformerFactory(api);
  const recorder = new FakeRecorder();
  const abort = new AbortController();
  const ctx: ControllerContext = {
    client: api as unknown as RestClient,
    informers: informers as unknown as SharedInformerFactory,
    recorder: recorder as unknown as EventRecorder,
    clock,
    logger: silentLogger(),
    options: parseOptions(argv),
    signal: abort.signal,
  };
  return { ctx, api, informers, recorder, clock, abort };
}

/** Lets queued promise chains (workers, fake API calls) run; the fake API answers within microtasks. */
export async function settle(rounds = 50): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise<void>((r) => setImmediate(r));
}
