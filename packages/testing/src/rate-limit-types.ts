import { beforeAll, expect, it } from 'vitest';
import { typeErrorsOf } from './type-errors.js';

/**
 * The type checks an adapter's `rateLimit(options)` passes (`pkg`: `@tollgate/express`,
 * `@tollgate/koa`): a misspelt field is the one the compiler names, for an inline rule and for a
 * rule set alike; a rule mixed with a rule set is refused; each form gives its own middleware type.
 */
export function itTypesRateLimitOptions(pkg: string): void {
  const imports = `import { createRuleSet } from '@tollgate/core';\nimport { rateLimit } from '${pkg}';\n`;
  let errors: Record<'inlineTypo' | 'ruleSetTypo' | 'mixed' | 'typed', string[]>;
  // One program for every case: a compile of the sources takes seconds.
  beforeAll(async () => {
    errors = await typeErrorsOf({
      inlineTypo: `${imports}rateLimit({ qps: 10, brust: 5 });\n`,
      ruleSetTypo: `${imports}rateLimit({ rules: createRuleSet({ rules: [] }), hedaers: false });\n`,
      mixed: `${imports}rateLimit({ rules: createRuleSet({ rules: [] }), qps: 5 });\n`,
      typed: `${imports}const inline: { resetKey(key: string): Promise<void> } = rateLimit({ qps: 10, burst: 5 });
const ruled: { identitiesOf: unknown } = rateLimit({ rules: createRuleSet({ rules: [] }), user: () => 'u' });
export { inline, ruled };\n`,
    });
  });

  it('names a misspelt field of an inline rule, never a valid one', () => {
    const { inlineTypo } = errors;
    expect(inlineTypo).toHaveLength(1);
    expect(inlineTypo[0]).toMatch(/^3:22 .*'brust' does not exist/);
    expect(inlineTypo[0]).not.toContain("'qps'");
  });

  it('names a misspelt field of a rule-set middleware, with the field meant', () => {
    const { ruleSetTypo } = errors;
    expect(ruleSetTypo).toHaveLength(1);
    expect(ruleSetTypo[0]).toMatch(/^3:50 .*'hedaers' does not exist.*Did you mean to write 'headers'\?/s);
  });

  it('refuses a rule mixed with a rule set, and types each middleware by its options', () => {
    const { mixed, typed } = errors;
    expect(mixed).toHaveLength(1);
    expect(mixed[0]).toMatch(/^3:50 .*'qps' does not exist/);
    expect(typed).toEqual([]);
  });
}
