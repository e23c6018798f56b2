import { describe, expect, it } from 'vitest';
import { structDiff, type GoField } from './struct-diff.ts';

const fields: GoField[] = [
  { name: 'AccessModes', json: 'accessModes', kind: 'slice', type: '[]core.PersistentVolumeAccessMode' },
  { name: 'Selector', json: 'selector', kind: 'ptr', type: 'v1.LabelSelector' },
  { name: 'VolumeName', json: 'volumeName', kind: 'string' },
  { name: 'StorageClassName', json: 'storageClassName', kind: 'ptr' },
  { name: 'VolumeMode', json: 'volumeMode', kind: 'ptr' },
  { name: 'DataSource', json: 'dataSource', kind: 'ptr' },
  { name: 'DataSourceRef', json: 'dataSourceRef', kind: 'ptr' },
];

describe('structDiff (go-cmp shape)', () => {
  it('a change in the middle: context each side, a lone extra equal field shown rather than elided', () => {
    const old = { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', volumeMode: 'Filesystem' };
    expect(structDiff('core.PersistentVolumeClaimSpec', fields, old, { ...old, storageClassName: 'fast' })).toBe(
      [
        '  core.PersistentVolumeClaimSpec{',
        '  \tAccessModes:      {"ReadWriteOnce"},',
        '  \tSelector:         nil,',
        '  \tVolumeName:       "",',
        '- \tStorageClassName: &"standard",',
        '+ \tStorageClassName: &"fast",',
        '  \tVolumeMode:       &"Filesystem",',
        '  \tDataSource:       nil,',
        '  \tDataSourceRef:    nil,',
        '  }',
      ].join('\n'),
    );
  });

  it('a change at the start shows no leading context; equal structs give no diff', () => {
    const old = { accessModes: ['ReadWriteOnce'] };
    expect(structDiff('T', fields, old, { accessModes: ['ReadWriteMany'] }).split('\n')).toEqual([
      '  T{',
      '- \tAccessModes: []core.PersistentVolumeAccessMode{"ReadWriteOnce"},',
      '+ \tAccessModes: []core.PersistentVolumeAccessMode{"ReadWriteMany"},',
      '  \tSelector:    nil,',
      '  \tVolumeName:  "",',
      '  \t... // 4 identical fields',
      '  }',
    ]);
    expect(structDiff('T', fields, old, { accessModes: ['ReadWriteOnce'] })).toBe('');
  });
});
