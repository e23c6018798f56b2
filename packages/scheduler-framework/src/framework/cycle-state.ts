// Per-pod, per-cycle scratch space that PreFilter/PreScore plugins fill and Filter/Score read.

export interface StateData {
  clone(): StateData;
}

export class CycleState {
  private readonly data = new Map<string, StateData>();
  /** Filter/Score plugins whose PreFilter/PreScore returned Skip for this pod. */
  readonly skipFilterPlugins = new Set<string>();
  readonly skipScorePlugins = new Set<string>();

  write(key: string, value: StateData): void {
    this.data.set(key, value);
  }
  read<T extends StateData>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }
  delete(key: string): void {
    this.data.delete(key);
  }
  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) c.data.set(k, v.clone());
    for (const s of this.skipFilterPlugins) c.skipFilterPlugins.add(s);
    for (const s of this.skipScorePlugins) c.skipScorePlugins.add(s);
    return c;
  }
}
