import { describe, expect, it } from 'vitest';
import { FeatureGates, featureGatesError, parseFeatureGates } from './feature-gates.ts';

describe('feature gates', () => {
  it('reads Name=bool pairs as Go ParseBool does; the last one wins', () => {
    expect([...parseFeatureGates(['A=true', 'B=F', 'C=1', 'A=0'])]).toEqual([
      ['A', false],
      ['B', false],
      ['C', true],
    ]);
  });

  it("bad pairs give pflag's message", () => {
    expect(featureGatesError(['A'])).toBe('invalid argument "A" for "--feature-gates" flag: missing bool value for A');
    expect(featureGatesError(['A=true', 'B=yes'])).toBe(
      'invalid argument "A=true,B=yes" for "--feature-gates" flag: invalid value of B=yes, err: strconv.ParseBool: parsing "yes": invalid syntax',
    );
    expect(featureGatesError(['A=true'])).toBeUndefined();
  });

  it('a gate is its default unless the flag sets it', () => {
    const defaults = { Alpha: false, Beta: true };
    expect(new FeatureGates(defaults).enabled('Alpha')).toBe(false);
    const g = new FeatureGates(defaults, ['Alpha=true', 'Beta=false', 'Unknown=true']);
    expect([g.enabled('Alpha'), g.enabled('Beta')]).toEqual([true, false]);
  });
});
