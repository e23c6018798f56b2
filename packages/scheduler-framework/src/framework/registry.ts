// Plugin factories by name. Registering a name twice is a programming error and throws.
import type { PluginFactory } from './interface.ts';

export class Registry {
  private readonly factories = new Map<string, PluginFactory>();

  constructor(entries: Record<string, PluginFactory> = {}) {
    for (const [name, f] of Object.entries(entries)) this.register(name, f);
  }

  register(name: string, factory: PluginFactory): void {
    if (this.factories.has(name)) throw new Error(`a plugin named ${name} already exists`);
    this.factories.set(name, factory);
  }

  /** Adds every factory of another registry (out-of-tree plugins); duplicates throw. */
  merge(other: Registry): void {
    for (const [name, f] of other.factories) this.register(name, f);
  }

  get(name: string): PluginFactory | undefined {
    return this.factories.get(name);
  }
  has(name: string): boolean {
    return this.factories.has(name);
  }
  names(): string[] {
    return [...this.factories.keys()];
  }
}
