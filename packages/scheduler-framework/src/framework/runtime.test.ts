import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../config/defaults.ts';
import { emptyPlugins } from '../config/types.ts';
import { inTreeRegistry } from '../plugins/registry.ts';
import { cacheWith, testHandleDeps } from '../testing/wrappers.ts';
import { Registry } from './registry.ts';
import { Framework } from './runtime.ts';

const deps = () => testHandleDeps(cacheWith([]));

describe('Registry', () => {
  it('rejects duplicate names', () => {
    const r = new Registry();
    r.register('A', () => ({ name: 'A' }));
    expect(() => r.register('A', () => ({ name: 'A' }))).toThrow('a plugin named A already exists');
    expect(() => new Registry().merge(inTreeRegistry())).not.toThrow();
    const twice = inTreeRegistry();
    expect(() => twice.merge(inTreeRegistry())).toThrow(/already exists/);
  });
});

describe('Framework', () => {
  it('expands the default multiPoint list per extension point with Kubernetes weights', () => {
    const f = new Framework(inTreeRegistry(), defaultProfile({}), deps());
    expect(f.queueSortPlugin.name).toBe('PrioritySort');
    expect(f.filterPlugins.map((p) => p.name)).toEqual([
      'NodeUnschedulable',
      'NodeName',
      'TaintToleration',
      'NodeAffinity',
      'NodePorts',
      'NodeResourcesFit',
      'VolumeRestrictions',
      'NodeVolumeLimits',
      'VolumeBinding',
      'VolumeZone',
      'PodTopologySpread',
      'InterPodAffinity',
    ]);
    expect(Object.fromEntries(f.scorePlugins.map((s) => [s.plugin.name, s.weight]))).toEqual({
      TaintToleration: 3,
      NodeAffinity: 2,
      NodeResourcesFit: 1,
      PodTopologySpread: 2,
      InterPodAffinity: 2,
      NodeResourcesBalancedAllocation: 1,
      ImageLocality: 1,
    });
    expect(f.postFilterPlugins.map((p) => p.name)).toEqual(['DefaultPreemption']);
    expect(f.bindPlugins.map((p) => p.name)).toEqual(['DefaultBinder']);
    expect(f.preEnqueuePlugins.map((p) => p.name)).toEqual(['SchedulingGates']);
  });

  it('honours disabled "*" per extension point and explicit weights', () => {
    const plugins = emptyPlugins();
    plugins.score = { enabled: [{ name: 'ImageLocality', weight: 9 }], disabled: [{ name: '*' }] };
    plugins.postFilter = { enabled: [], disabled: [{ name: 'DefaultPreemption' }] };
    const f = new Framework(inTreeRegistry(), defaultProfile({ plugins }), deps());
    expect(f.scorePlugins.map((s) => [s.plugin.name, s.weight])).toEqual([['ImageLocality', 9]]);
    expect(f.postFilterPlugins).toEqual([]);
    expect(f.filterPlugins.length).toBe(12);
  });

  it('refuses unknown plugins, plugins at points they do not extend, and profiles without a binder', () => {
    const unknown = emptyPlugins();
    unknown.filter = { enabled: [{ name: 'Nope' }], disabled: [] };
    expect(() => new Framework(inTreeRegistry(), defaultProfile({ plugins: unknown }), deps())).toThrow('plugin "Nope" does not exist');
    const wrong = emptyPlugins();
    wrong.score = { enabled: [{ name: 'NodeName' }], disabled: [] };
    expect(() => new Framework(inTreeRegistry(), defaultProfile({ plugins: wrong }), deps())).toThrow('plugin "NodeName" does not extend score plugin');
    const nobind = emptyPlugins();
    nobind.bind = { enabled: [], disabled: [{ name: '*' }] };
    expect(() => new Framework(inTreeRegistry(), defaultProfile({ plugins: nobind }), deps())).toThrow('at least one bind plugin is needed');
  });
});
