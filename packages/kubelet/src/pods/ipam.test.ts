import { describe, expect, it } from 'vitest';
import { PodIPAllocator } from './ipam.ts';

describe('PodIPAllocator', () => {
  it('hands out .2 upward and reuses released addresses', () => {
    const a = new PodIPAllocator('10.244.3.0/24');
    expect(a.allocate()).toBe('10.244.3.2');
    expect(a.allocate()).toBe('10.244.3.3');
    a.release('10.244.3.2');
    expect(a.allocate()).toBe('10.244.3.2');
    expect(a.allocate()).toBe('10.244.3.4');
  });
  it('runs out at the broadcast address', () => {
    const a = new PodIPAllocator('10.0.0.0/30');
    expect(a.allocate()).toBe('10.0.0.2');
    expect(a.allocate()).toBeUndefined();
  });
});
