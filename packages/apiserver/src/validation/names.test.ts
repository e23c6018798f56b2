import { describe, expect, it } from 'vitest';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isEnvVarName,
  isQualifiedName,
  isValidIP,
  isValidLabelValue,
  isValidPortName,
} from '@kemu/api';
import { fieldErrors, formatValue } from './field.ts';
import { goLabelSelector } from './goformat.ts';

describe('name validators', () => {
  it.each<[string, (s: string) => string[], string, boolean]>([
    ['label', isDNS1123Label, 'my-name', true],
    ['label', isDNS1123Label, '123-abc', true],
    ['label', isDNS1123Label, 'My-name', false],
    ['label', isDNS1123Label, 'a.b', false],
    ['label', isDNS1123Label, '-a', false],
    ['label', isDNS1123Label, 'a'.repeat(64), false],
    ['subdomain', isDNS1123Subdomain, 'example.com', true],
    ['subdomain', isDNS1123Subdomain, 'a..b', false],
    ['subdomain', isDNS1123Subdomain, 'x'.repeat(254), false],
    ['1035', isDNS1035Label, 'web', true],
    ['1035', isDNS1035Label, '1web', false],
    ['qualified', isQualifiedName, 'app', true],
    ['qualified', isQualifiedName, 'example.com/My_Name', true],
    ['qualified', isQualifiedName, 'Example.com/x', false],
    ['qualified', isQualifiedName, '/x', false],
    ['qualified', isQualifiedName, 'a/b/c', false],
    ['qualified', isQualifiedName, '', false],
    ['label value', isValidLabelValue, '', true],
    ['label value', isValidLabelValue, 'v1.2_x', true],
    ['label value', isValidLabelValue, 'has space', false],
    ['config key', isConfigMapKey, 'app.properties', true],
    ['config key', isConfigMapKey, '..x', false],
    ['env', isEnvVarName, 'MY_VAR', true],
    ['env', isEnvVarName, '1VAR', false],
    ['port name', isValidPortName, 'http', true],
    ['port name', isValidPortName, 'http--x', false],
    ['port name', isValidPortName, '8080', false],
    ['ip', isValidIP, '10.0.0.1', true],
    ['ip', isValidIP, '10.0.0.256', false],
    ['ip', isValidIP, '2001:db8::1', true],
  ])('%s %j valid=%s', (_k, fn, v, ok) => {
    expect(fn(v).length === 0).toBe(ok);
  });

  it('uses Kubernetes wording', () => {
    expect(isDNS1123Label('a'.repeat(64))[0]).toBe('must be no more than 63 characters');
    expect(isQualifiedName('/x')).toEqual(['prefix part must be non-empty']);
    expect(isDNS1035Label('1web')[0]).toBe(
      "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
    );
  });
});

describe('field errors', () => {
  it.each([
    [fieldErrors.required('spec.x'), 'Required value', 'FieldValueRequired'],
    [fieldErrors.required('metadata.name', 'name or generateName is required'), 'Required value: name or generateName is required', 'FieldValueRequired'],
    [fieldErrors.invalid('spec.replicas', -1, 'must be greater than or equal to 0'), 'Invalid value: -1: must be greater than or equal to 0', 'FieldValueInvalid'],
    [fieldErrors.notSupported('spec.type', 'X', ['A', 'B']), 'Unsupported value: "X": supported values: "A", "B"', 'FieldValueNotSupported'],
    [fieldErrors.forbidden('spec', 'nope'), 'Forbidden: nope', 'FieldValueForbidden'],
    [fieldErrors.duplicate('spec.containers[1].name', 'c'), 'Duplicate value: "c"', 'FieldValueDuplicate'],
    [fieldErrors.immutable('spec.selector', goLabelSelector({ matchLabels: { app: 'web' } })), 'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable', 'FieldValueInvalid'],
  ])('%j', (cause, message, reason) => {
    expect(cause.message).toBe(message);
    expect(cause.reason).toBe(reason);
  });

  it('formats values like Go', () => {
    expect(formatValue(['a', 'b'])).toBe('[]string{"a", "b"}');
    expect(formatValue(null)).toBe('null');
    expect(formatValue(true)).toBe('true');
  });
});
