// The apiserver's notion of time, injected so tests can control timestamps and grace periods.
export interface Clock {
  now(): number;
}

export const realClock: Clock = { now: () => Date.now() };
