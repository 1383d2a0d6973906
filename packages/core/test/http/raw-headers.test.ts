import { describe, expect, it } from 'vitest';
import { hasRawField, rawFieldValue } from '../../src/http/raw-headers.js';

describe('raw header fields', () => {
  const raw = ['Host', 'example.test', 'X-Forwarded-For', '198.51.100.7', 'x-FORWARDED-for', '203.0.113.9', 'Forwarded', ''];

  it('joins every line of a field named in any case, as Node joins req.headers', () => {
    expect(rawFieldValue(raw, 'x-forwarded-for')).toBe('198.51.100.7, 203.0.113.9');
  });

  it('finds a field with an empty value, and none that is absent or of another length', () => {
    expect(hasRawField(raw, 'forwarded')).toBe(true);
    expect(hasRawField(raw, 'x-forwarded-host')).toBe(false);
    expect(rawFieldValue(['X-Forwarded-Fo', 'a'], 'x-forwarded-for')).toBeUndefined();
  });

  it('answers undefined for a request without raw headers', () => {
    expect(rawFieldValue(undefined, 'x-forwarded-for')).toBeUndefined();
    expect(hasRawField(undefined, 'forwarded')).toBe(false);
  });
});
