import { describe, expect, it } from 'vitest';
import { FakeClock } from '@kemu/base';
import { Expectations, EXPECTATIONS_TIMEOUT_MS } from './expectations.ts';

describe('Expectations', () => {
  it('is satisfied once every creation is observed', () => {
    const e = new Expectations(new FakeClock());
    expect(e.satisfied('ns/rs')).toBe(true);
    e.expectCreations('ns/rs', 2);
    expect(e.satisfied('ns/rs')).toBe(false);
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(false);
    e.creationObserved('ns/rs');
    expect(e.satisfied('ns/rs')).toBe(true);
  });
  it('counts each pod deletion once and ignores unrelated pods', () => {
    const e = new Expectations(new FakeClock());
    e.expectDeletions('ns/rs', ['ns/a', 'ns/b']);
    e.deletionObserved('ns/rs', 'ns/a');
    e.deletionObserved('ns/rs', 'ns/a');
    e.deletionObserved('ns/rs', 'ns/zzz');
    expect(e.satisfied('ns/rs')).toBe(false);
    e.deletionObserved('ns/rs', 'ns/b');
    expect(e.satisfied('ns/rs')).toBe(true);
  });
  it('expires after five minutes', async () => {
    const clock = new FakeClock();
    const e = new Expectations(clock);
    e.expectCreations('ns/rs', 1);
    await clock.advance(EXPECTATIONS_TIMEOUT_MS);
    expect(e.satisfied('ns/rs')).toBe(false);
    await clock.advance(1);
    expect(e.satisfied('ns/rs')).toBe(true);
  });
  it('lowers expectations for creations that were skipped', () => {
    const e = new Expectations(new FakeClock());
    e.expectCreations('ns/rs', 4);
    e.creationObserved('ns/rs');
    e.lowerExpectations('ns/rs', 3, 0);
    expect(e.satisfied('ns/rs')).toBe(true);
  });
});
