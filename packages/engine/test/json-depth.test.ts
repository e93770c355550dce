import { describe, expect, it } from 'vitest';
import { JsonDepthScanner, jsonTooDeep } from '../src/json-depth';

const deep = (levels: number, open = '[', close = ']') => open.repeat(levels) + close.repeat(levels);

describe('JSON depth scanner', () => {
  it.each([
    ['64 arrays', deep(64), false],
    ['65 arrays', deep(65), true],
    ['65 objects and arrays', '{"a":'.repeat(33) + '[' + '['.repeat(31) + ']'.repeat(32) + '}'.repeat(33), true],
    ['brackets inside strings', JSON.stringify({ s: '['.repeat(1000) }), false],
    ['an escaped quote that does not end the string', `["\\"${'['.repeat(100)}"]`, false],
    ['an escaped backslash that ends before the quote', `["\\\\", ${deep(70)}]`, true],
    ['ndjson lines each 40 deep', Array.from({ length: 10 }, () => deep(40)).join('\n'), false],
    ['stray closers do not lend depth', ']]]]' + deep(64), false],
  ])('%s: too deep = %s', (_label, text, expected) => {
    expect(jsonTooDeep(Buffer.from(text))).toBe(expected);
  });

  it('carries strings and escapes across chunk boundaries, at every split', () => {
    // A quote escaped across the boundary would end the string early and count the brackets after it.
    const text = Buffer.from(`["a\\"${'['.repeat(80)}", ${deep(60)}]`);
    for (let cut = 0; cut <= text.length; cut++) {
      const scanner = new JsonDepthScanner();
      const ok = scanner.push(text.subarray(0, cut)) && scanner.push(text.subarray(cut));
      expect(ok, `split at ${cut}`).toBe(true);
    }
    const tooDeep = Buffer.from(`["a\\"", ${deep(65)}]`);
    for (let cut = 0; cut <= tooDeep.length; cut++) {
      const scanner = new JsonDepthScanner();
      expect(scanner.push(tooDeep.subarray(0, cut)) && scanner.push(tooDeep.subarray(cut)), `split at ${cut}`).toBe(false);
    }
  });
});
