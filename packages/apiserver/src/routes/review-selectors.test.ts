import { describe, expect, it } from 'vitest';
import { resourceSelectorCauses, selectorEvaluationNotes } from './review-selectors.ts';

const messages = (res: Record<string, unknown>) => resourceSelectorCauses(res).map((c) => `${c.field}: ${c.message}`);

describe('review selectors', () => {
  it('checks both forms, then each requirement (unknown operators allowed)', () => {
    expect(messages({ fieldSelector: { requirements: [{ key: '', operator: 'In' }, { key: 'spec.nodeName', operator: 'Exists', values: ['a'] }, { key: 'x', operator: 'Near' }] } })).toEqual([
      'spec.resourceAttributes.fieldSelector.requirements[0].key: Required value: must be specified',
      "spec.resourceAttributes.fieldSelector.requirements[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      "spec.resourceAttributes.fieldSelector.requirements[1].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
    ]);
    expect(messages({ labelSelector: { requirements: [{ key: 'bad key', operator: 'In', values: ['ok', 'not ok'] }] } })).toEqual([
      expect.stringMatching(/^spec\.resourceAttributes\.labelSelector\.requirements\[0\]\.key: Invalid value: "bad key": name part must consist of/),
      expect.stringMatching(/^spec\.resourceAttributes\.labelSelector\.requirements\[0\]\.values\[1\]: Invalid value: "not ok": a valid label must be/),
    ]);
    expect(messages({ labelSelector: { rawSelector: 'app=web' }, fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] } })).toEqual([]);
  });

  it('notes selectors that cannot be used, wholly or partly', () => {
    expect(selectorEvaluationNotes({ fieldSelector: { rawSelector: 'spec.nodeName' }, labelSelector: { rawSelector: 'app in (' } })).toEqual([
      'spec.resourceAttributes.fieldSelector ignored due to parse error',
      'spec.resourceAttributes.labelSelector ignored due to parse error',
    ]);
    expect(
      selectorEvaluationNotes({
        fieldSelector: { requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }, { key: 'a', operator: 'Exists' }] },
        labelSelector: { requirements: [{ key: 'app', operator: 'Near', values: ['x'] }] },
      }),
    ).toEqual(['spec.resourceAttributes.fieldSelector partially ignored due to parse error', 'spec.resourceAttributes.labelSelector ignored due to parse error']);
    expect(selectorEvaluationNotes({ fieldSelector: { rawSelector: 'spec.nodeName=n1' }, labelSelector: { requirements: [{ key: 'app', operator: 'Exists' }] } })).toEqual([]);
  });
});
